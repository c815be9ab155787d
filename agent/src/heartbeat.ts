// The heartbeat exchange as pure functions: what the agent reports, and what an answer
// means for the tunnel (DESIGN.md section 5: rebuild when forwards_hash or any tunnel
// field differs from what runs).
import { mergeTunnelFields, PayloadError, type TunnelConfig, type TunnelField } from './payload';
import { isHandshakeFresh } from './tunnel-plan';
import type { TunnelStatus } from './tunnel';

export interface HeartbeatBody {
  device_id: string;
  status: 'connected' | 'recovering' | 'stopped';
  state: string;
  tunnel_up: boolean;
  last_handshake?: string;
  /** wgcp's own optional fields (docs/device-api.md): the LAN behind the device and the interval in seconds. */
  networks?: string[];
  interval?: number;
}

/** What the configuration adds to every report: the interval, and the networks when some are configured. */
export interface ReportExtras { networks: string[] | null; interval: number }

export function heartbeatBody(deviceId: string, state: string, tunnel: TunnelStatus, nowMs: number, stopping = false, extras?: ReportExtras): HeartbeatBody {
  const tunnelUp = tunnel.present && isHandshakeFresh(tunnel.lastHandshake, nowMs);
  const body: HeartbeatBody = {
    device_id: deviceId,
    status: stopping ? 'stopped' : tunnelUp ? 'connected' : 'recovering',
    state,
    tunnel_up: tunnelUp,
  };
  if (tunnel.lastHandshake) body.last_handshake = tunnel.lastHandshake.toISOString();
  if (extras?.networks) body.networks = extras.networks;
  if (extras) body.interval = extras.interval;
  return body;
}

export interface Verdict {
  next: TunnelConfig;
  changed: TunnelField[];
  /** The answer's hash; null when the answer carried none (the stored one stays). */
  forwardsHash: string | null;
  rebuild: boolean;
  reasons: string[];
}

/**
 * Judges an answer against the tunnel that runs. A first hash (none stored yet, just after
 * provisioning) is adopted without a rebuild: there is nothing it could differ from.
 */
export function judgeAnswer(current: TunnelConfig, storedHash: string | null, answer: unknown, tunnelPresent: boolean): Verdict {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw new PayloadError('heartbeat answer is not a JSON object');
  const a = answer as Record<string, unknown>;
  const hash = a.forwards_hash;
  if (hash !== undefined && hash !== null && typeof hash !== 'string') throw new PayloadError('heartbeat field "forwards_hash" is not a string');
  const { next, changed } = mergeTunnelFields(current, a);
  const forwardsHash = typeof hash === 'string' ? hash : null;
  const reasons: string[] = [];
  if (forwardsHash !== null && storedHash !== null && forwardsHash !== storedHash) reasons.push('forwards_hash changed');
  if (changed.length) reasons.push(`changed: ${changed.join(', ')}`);
  if (!tunnelPresent) reasons.push('tunnel interface is missing');
  return { next, changed, forwardsHash, rebuild: reasons.length > 0, reasons };
}
