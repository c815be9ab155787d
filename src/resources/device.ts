// The device, described once: its record (a row of `devices`, with the time seen and the
// handshake from the narrow device_seen row), what each role sees of it and its OpenAPI
// schema; the store's row mapping, the presenter and the page's types come from here.
// A device_id is a credential: whoever sends it to the heartbeat gets the device's private
// key. So the control plane names a device by its `id` (its peer's id, which is not secret)
// and shows the device_id, as `uuid`, to admins alone; everyone else, and every event, sees
// its first 8 characters (`uuidPrefix`).
import type { Resource } from './describe';
import { readBool } from './read';
import type { PeerRecord } from './peer';

/** Enough to tell devices apart in a log or an event (32 bits), far too little to act as one. */
export const deviceIdPrefix = (id: string): string => id.slice(0, 8);

export interface DeviceRecord {
  deviceId: string;
  serverId: number;
  peerId: number;
  hwid: string;
  suspended: boolean;
  status: string;
  state: string;
  tunnelUp: boolean | null;
  lastHandshake: string | null;
  lastSeenAt: string | null;
  lastSource: string | null;
  /** Seconds between the agent's heartbeats, as it last reported them; null: never reported. */
  heartbeatIntervalS: number | null;
  provisionedAt: string;
  createdAt: string;
  updatedAt: string;
}

/** What the presenter is handed beside a device: its peer (its address) and its forwards' hash. */
export interface DeviceSight { peer: Pick<PeerRecord, 'ip'> | undefined; forwardsHash: string }

const str = { type: 'string' };
const int = { type: 'integer', format: 'int64' };
const ts = { type: 'string', format: 'date-time' };
const nullableTs = { type: ['string', 'null'], format: 'date-time' };
const bit = { write: (v: boolean) => (v ? 1 : 0), read: (v: number) => v === 1 };
// The narrow row is the truth once a device has one (the wide row's columns: from before the
// migration). Its times are milliseconds, the wide row's ISO text: `read` tells them apart.
const seenOr = (narrow: string, wide: string) => `CASE WHEN s.id IS NOT NULL THEN s.${narrow} ELSE ${wide} END`;
const isoOf = (v: number | string | null): string | null => (typeof v === 'number' ? new Date(v).toISOString() : v);

export const DEVICE: Resource<DeviceRecord, DeviceSight> = {
  name: 'Device',
  table: 'devices',
  description: 'A provisioned device; each one is a peer of its server (peerID).',
  fields: {
    deviceId: {
      json: 'uuid', column: 'device_id', seenBy: 'admin',
      schema: { ...str, format: 'uuid', description: "the device contract's device_id, a credential (the heartbeat answers the device's keys to whoever sends it): shown to admins only" },
    },
    serverId: { json: 'serverID', column: 'server_id', schema: int },
    peerId: { json: 'peerID', column: 'peer_id', schema: int },
    hwid: { column: 'hwid', schema: str },
    // The one field a PUT takes (DeviceUpdate): a suspension is an operation of its own.
    suspended: { column: { name: 'suspended', ...bit }, input: readBool, schema: { type: 'boolean' } },
    status: { column: 'status', schema: str },
    state: { column: 'state', schema: str },
    tunnelUp: { column: { name: 'tunnel_up', read: (v: number | null) => (v === null ? null : v === 1) }, schema: { type: ['boolean', 'null'] } },
    lastHandshake: { column: { name: 'last_handshake', select: seenOr('handshake_ms', 'last_handshake'), read: isoOf }, schema: nullableTs },
    lastSeenAt: { column: { name: 'last_seen_at', select: seenOr('seen_ms', 'last_seen_at'), read: isoOf }, schema: nullableTs },
    lastSource: { json: 'lastSourceAddress', column: 'last_source', schema: { type: ['string', 'null'] } },
    heartbeatIntervalS: {
      column: 'heartbeat_interval_s',
      schema: { type: ['integer', 'null'], description: "seconds between the agent's heartbeats, as its last heartbeat said (`interval`); null: it never said" },
    },
    provisionedAt: { column: 'provisioned_at', schema: ts },
    createdAt: { column: 'created_at', schema: ts },
    updatedAt: { column: 'updated_at', schema: ts },
  },
  derived: {
    // A device is a peer of its server, one peer a device for the device's whole life (a known
    // hwid keeps its peer), and peer ids are never given again.
    id: { value: (d) => d.peerId, schema: { ...int, description: "the device's id in routes: its peer's id (a device is a peer of its server)" } },
    uuidPrefix: { value: (d) => deviceIdPrefix(d.deviceId), schema: { ...str, description: 'the first 8 characters of the device_id, shown to every role' } },
    ip: { after: 'hwid', value: (_d, s) => s.peer?.ip ?? '', schema: str },
    forwardsHash: { after: 'lastSource', value: (_d, s) => s.forwardsHash, schema: str },
  },
};
