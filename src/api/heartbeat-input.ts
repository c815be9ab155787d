// The heartbeat body: device_id must be a UUID; the optional status fields are checked
// for type and size; any other field is ignored (the contract lets agents add fields).
// Two optional fields are wgcp's own (docs/device-api.md): `networks`, the LAN prefixes
// behind the device, and `interval`, the agent's heartbeat interval in seconds.
import { apiError, fieldError } from '../error-registry';
import { isUuid } from '../device/identifiers';
import { readNetworks } from '../resources/read-client-options';

export interface HeartbeatInput {
  deviceId: string;
  status?: string;
  state?: string;
  tunnelUp?: boolean;
  /** null: the device reports no handshake yet; undefined: not reported. */
  lastHandshake?: string | null;
  /** The networks behind the device, as networks; undefined: not reported (they stay as they are). */
  networks?: string[];
  /** Seconds between heartbeats; undefined: not reported. */
  intervalS?: number;
}

/** A refused set is one code whatever the rule, so an agent can tell it from any other 400. */
function readDeviceNetworks(body: Record<string, unknown>): string[] | undefined {
  if (body.networks === null) return undefined;
  try {
    return readNetworks(body);
  } catch (err) {
    throw apiError('WGCP_DEVICE_NETWORKS_REFUSED', { reason: (err as Error).message.replace(/^networks /, '') }, { field: 'networks' });
  }
}

const optionalText = (body: Record<string, unknown>, field: string, max: number): string | undefined => {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw fieldError(field, 'must be a string');
  if (v.length > max) throw fieldError(field, `must be at most ${max} characters`);
  return v;
};

export function readHeartbeat(body: Record<string, unknown>): HeartbeatInput {
  if (!isUuid(body.device_id)) throw apiError('WGCP_DEVICE_ID_INVALID');
  const input: HeartbeatInput = {
    deviceId: body.device_id.toLowerCase(),
    status: optionalText(body, 'status', 64),
    state: optionalText(body, 'state', 1024),
  };
  if (body.tunnel_up !== undefined && body.tunnel_up !== null) {
    if (typeof body.tunnel_up !== 'boolean') throw fieldError('tunnel_up', 'must be true or false');
    input.tunnelUp = body.tunnel_up;
  }
  const handshake = optionalText(body, 'last_handshake', 64);
  if (handshake === '' || (body.last_handshake === null)) input.lastHandshake = null;
  else if (handshake !== undefined) {
    const ms = Date.parse(handshake);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(handshake) || Number.isNaN(ms)) throw fieldError('last_handshake', 'must be an ISO 8601 timestamp');
    input.lastHandshake = new Date(ms).toISOString();
  }
  const networks = readDeviceNetworks(body);
  if (networks !== undefined) input.networks = networks;
  if (body.interval !== undefined && body.interval !== null) {
    if (!Number.isInteger(body.interval) || (body.interval as number) < 1 || (body.interval as number) > 86400) throw fieldError('interval', 'must be a whole number of seconds from 1 to 86400');
    input.intervalS = body.interval as number;
  }
  return input;
}
