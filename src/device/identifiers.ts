// The shapes the device contract accepts: UUIDs for tokens and device ids, and hardware
// ids of printable ASCII without spaces, 1 to 128 characters.
import crypto from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HWID = /^[\x21-\x7e]{1,128}$/;

export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);
export const isHardwareId = (v: unknown): v is string => typeof v === 'string' && HWID.test(v);
export const newUuid = (): string => crypto.randomUUID();
