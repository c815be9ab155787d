// The configuration payload of the contract (the plaintext inside encrypted_config) and the
// tunnel fields a heartbeat may change. Unknown fields are ignored, as section 9 asks.
export interface TunnelConfig {
  device_id: string;
  private_key: string;
  preshared_key: string;
  internal_ip: string;
  server_pub: string;
  endpoint: string;
  dns: string;
  allowed_ips: string;
  server_wg_ip: string;
  /** A dual-stack server's extra fields (absent from older servers): the device's IPv6 address, what it routes, the server's. */
  internal_ip6?: string;
  allowed_ips6?: string;
  server_wg_ip6?: string;
}

/** The fields of a heartbeat answer that describe the tunnel the device must run. */
export const TUNNEL_FIELDS = ['internal_ip', 'private_key', 'preshared_key', 'server_pub', 'endpoint', 'server_wg_ip', 'dns', 'allowed_ips'] as const;
/** Tunnel fields a server may leave out (an IPv4-only server, or one from before IPv6). */
export const OPTIONAL_TUNNEL_FIELDS = ['internal_ip6', 'allowed_ips6', 'server_wg_ip6'] as const;
export type TunnelField = (typeof TUNNEL_FIELDS)[number] | (typeof OPTIONAL_TUNNEL_FIELDS)[number];

export class PayloadError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-fA-F:.]*:[0-9a-fA-F:.]*$/;
const PRINTABLE = /^[\x20-\x7e]{0,255}$/;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export const isIp = (s: string): boolean => IPV4.test(s) || IPV6.test(s);

/** An address with an optional prefix, e.g. `10.0.0.2` or `10.0.0.2/32` or `0.0.0.0/0`. */
export function isCidr(s: string): boolean {
  const [ip, prefix, extra] = s.split('/');
  if (extra !== undefined || !isIp(ip)) return false;
  if (prefix === undefined) return true;
  const max = IPV4.test(ip) ? 32 : 128;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= max;
}

/** `host:port` or `[v6]:port`, as WireGuard's Endpoint. */
export function isEndpoint(s: string): boolean {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(s);
  if (!m) return false;
  const port = Number(m[3]);
  const host = m[1] ?? m[2];
  return port >= 1 && port <= 65535 && (m[1] ? IPV6.test(host) : IPV4.test(host) || HOSTNAME.test(host));
}

export const splitList = (s: string): string[] => s.split(',').map((x) => x.trim()).filter(Boolean);

const CHECKS: Record<TunnelField | 'device_id', (v: string) => boolean> = {
  device_id: (v) => UUID.test(v),
  private_key: (v) => HEX_KEY.test(v),
  preshared_key: (v) => HEX_KEY.test(v),
  server_pub: (v) => HEX_KEY.test(v),
  internal_ip: (v) => isCidr(v),
  endpoint: isEndpoint,
  allowed_ips: (v) => splitList(v).length > 0 && splitList(v).every(isCidr),
  // Kept and compared but not run by the agent: a value it cannot parse must not stop the tunnel.
  server_wg_ip: (v) => PRINTABLE.test(v),
  dns: (v) => PRINTABLE.test(v),
  internal_ip6: (v) => isCidr(v) && v.includes(':'),
  allowed_ips6: (v) => splitList(v).length > 0 && splitList(v).every((c) => isCidr(c) && c.includes(':')),
  server_wg_ip6: (v) => PRINTABLE.test(v),
};

function checkField(field: keyof typeof CHECKS, value: unknown): string {
  if (typeof value !== 'string' || !CHECKS[field](value)) throw new PayloadError(`configuration field "${field}" is missing or invalid`);
  return field.endsWith('_key') || field === 'server_pub' ? value.toLowerCase() : value;
}

/** The payload of a provisioning answer (or of the stored configuration), checked field by field. */
export function parsePayload(value: unknown): TunnelConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PayloadError('configuration is not a JSON object');
  const v = value as Record<string, unknown>;
  const out = { device_id: checkField('device_id', v.device_id) } as TunnelConfig;
  for (const f of TUNNEL_FIELDS) out[f] = checkField(f, v[f]);
  for (const f of OPTIONAL_TUNNEL_FIELDS) if (v[f] !== undefined && v[f] !== null) out[f] = checkField(f, v[f]);
  return out;
}

/**
 * The tunnel a heartbeat answer asks for: its present tunnel fields over the current ones
 * (a missing field keeps its value), and the names of the fields that changed.
 */
export function mergeTunnelFields(current: TunnelConfig, answer: Record<string, unknown>): { next: TunnelConfig; changed: TunnelField[] } {
  const next = { ...current };
  const changed: TunnelField[] = [];
  for (const f of TUNNEL_FIELDS) {
    if (answer[f] === undefined || answer[f] === null) continue;
    const value = checkField(f, answer[f]);
    if (value !== current[f]) {
      next[f] = value;
      changed.push(f);
    }
  }
  // The IPv6 fields ride only on dual-stack answers: present, they are taken; absent, the
  // server has (now) no IPv6 for the device, and the tunnel drops it.
  for (const f of OPTIONAL_TUNNEL_FIELDS) {
    const value = answer[f] === undefined || answer[f] === null ? undefined : checkField(f, answer[f]);
    if (value !== current[f]) {
      if (value === undefined) delete next[f]; else next[f] = value;
      changed.push(f);
    }
  }
  return { next, changed };
}

/** How logs name the device: the device_id is a credential (the heartbeat answers keys to it), its first 8 characters are not. */
export function shortDeviceId(id: string | null): string | null {
  return id === null ? null : id.slice(0, 8);
}
