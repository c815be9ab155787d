// The heartbeat body: device_id must be a UUID; the optional status fields are checked
// for type and size; any other field is ignored (the contract lets agents add fields).
import { apiError, fieldError } from '../error-registry';
import { isUuid } from '../device/identifiers';

export interface HeartbeatInput {
  deviceId: string;
  status?: string;
  state?: string;
  tunnelUp?: boolean;
  /** null: the device reports no handshake yet; undefined: not reported. */
  lastHandshake?: string | null;
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
  return input;
}
