// The shapes the device contract accepts: UUIDs for tokens and device ids, and hardware
// ids of printable ASCII without spaces, 1 to 128 characters. A device_id is a credential
// (the heartbeat answers keys to whoever presents it): logs and events show its prefix.
import crypto from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HWID = /^[\x21-\x7e]{1,128}$/;

export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);
export const isHardwareId = (v: unknown): v is string => typeof v === 'string' && HWID.test(v);
export const newUuid = (): string => crypto.randomUUID();

// The prefix every role sees is the device's description's (resources/device.ts).
export { deviceIdPrefix } from '../resources/device';
