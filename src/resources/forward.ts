// A device's port forward, described once: its record (a row of `port_forwards`), its input
// rules, what the API shows (the device by its id, never by its device_id, a credential) and
// its OpenAPI schema. Which router ports are free is the operation's rule (ops/forward-rules.ts).
import type { Resource } from './describe';
import { oneOf, readInt, required } from './read';

export type ForwardProtocol = 'tcp' | 'udp';

export interface ForwardRecord {
  id: number;
  deviceId: string;
  protocol: ForwardProtocol;
  listenPort: number;
  targetPort: number;
  createdAt: string;
}

/** What the presenter is handed beside a forward: its device's id (its peer's). */
export interface ForwardSight { deviceNumber: number }

const port = (description: string) => ({ type: 'integer', minimum: 1, maximum: 65535, description });

export const FORWARD: Resource<ForwardRecord, ForwardSight> = {
  name: 'PortForward',
  table: 'port_forwards',
  required: ['protocol', 'listenPort'],
  fields: {
    id: { column: 'id', schema: { type: 'integer', format: 'int64' } },
    deviceId: { column: 'device_id', seenBy: 'never' },
    protocol: { column: 'protocol', input: (b, f) => required(oneOf(b, f, ['tcp', 'udp'] as const), f), schema: { enum: ['tcp', 'udp'] } },
    listenPort: { column: 'listen_port', input: (b, f) => required(readInt(b, f, 1, 65535), f), schema: port("the router's port; unique per protocol on the router") },
    // Left out, the device port is the router port (api/forwards-input.ts).
    targetPort: { column: 'target_port', input: (b, f) => readInt(b, f, 1, 65535), schema: port("the device's port; defaults to listenPort") },
    createdAt: { column: 'created_at', schema: { type: 'string', format: 'date-time' } },
  },
  derived: {
    deviceID: { after: 'id', value: (_f, s) => s.deviceNumber, schema: { type: 'integer', format: 'int64', description: "the device's id" } },
  },
};
