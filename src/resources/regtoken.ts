// A registration token, described once: a one-time UUID an operator makes for a server, which
// a device exchanges for its configuration (the device contract's provisioning). Its record
// (a row of `registration_tokens`), what the API shows (the device that used it by its id,
// never by its device_id, a credential) and the OpenAPI schema. A create takes no body.
import type { Resource } from './describe';

export interface RegTokenRecord {
  token: string;
  serverId: number;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  /** The device_id of the device that used it: a credential, never shown. */
  deviceId: string | null;
}

/** What the presenter is handed beside a token: the time now, and the id of the device that used it while that device is there. */
export interface RegTokenSight { now: string; deviceNumber: number | null }

export type RegTokenState = 'unused' | 'used' | 'expired';
export const regTokenStateAt = (t: RegTokenRecord, now: string): RegTokenState => (t.usedAt !== null ? 'used' : t.expiresAt <= now ? 'expired' : 'unused');

const ts = { type: 'string', format: 'date-time' };

export const REGTOKEN: Resource<RegTokenRecord, RegTokenSight> = {
  name: 'RegistrationToken',
  table: 'registration_tokens',
  description: 'A one-time token a device exchanges for its configuration (UUIDv4, single use, valid 24 h)',
  fields: {
    token: { column: 'token', schema: { type: 'string', format: 'uuid' } },
    serverId: { json: 'serverID', column: 'server_id', schema: { type: 'integer', format: 'int64' } },
    createdAt: { column: 'created_at', schema: ts },
    expiresAt: { column: 'expires_at', schema: ts },
    usedAt: { column: 'used_at', schema: { type: ['string', 'null'], format: 'date-time' } },
    deviceId: { column: 'device_id', seenBy: 'never' },
  },
  derived: {
    state: { after: 'serverId', value: (t, k) => regTokenStateAt(t, k.now), schema: { enum: ['unused', 'used', 'expired'] } },
    deviceID: { after: 'usedAt', value: (_t, k) => k.deviceNumber, schema: { type: ['integer', 'null'], description: 'the id of the device that used it; null while unused or once that device is gone' } },
  },
};
