// The agent's configuration file (DESIGN.md section 5): a JSON object with exactly these
// keys. Anything wrong stops with a message that names the key. A plain http:// server_url
// is refused unless "allow_insecure_http" is true: the device_id (a credential) and the keys
// would cross the network readable. Loopback is exempt: that traffic never leaves the device.
import fs from 'node:fs';
import path from 'node:path';
import { isCidr } from './payload';

export interface AgentConfig {
  server_url: URL;
  token: string;
  server_salt: string;
  hwid: string;
  ca: string | null;
  interface: string;
  state_dir: string;
  heartbeat_interval_s: number;
  /** The LAN prefixes behind the device, told to the router in every heartbeat; null: none configured (nothing told). */
  networks: string[] | null;
}

export class ConfigError extends Error {}

const KEYS = ['server_url', 'allow_insecure_http', 'token', 'server_salt', 'hwid', 'hwid_file', 'ca_file', 'interface', 'state_dir', 'heartbeat_interval_s', 'networks'];
const HWID = /^[\x21-\x7e]{1,128}$/;
const IFNAME = /^[A-Za-z0-9_.=+-]{1,15}$/;

function str(v: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const value = v[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`"${key}" must be a non-empty string`);
  return value;
}

/** 127.0.0.0/8, ::1 or localhost, as the URL parser spells them. */
function isLoopbackHost(url: URL): boolean {
  const host = url.hostname.replace(/\.$/, '');
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function readFile(file: string, key: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${key.includes(" ") ? key : `"${key}"`}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export function parseConfig(value: unknown): AgentConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError('the configuration must be a JSON object');
  const v = value as Record<string, unknown>;
  const unknown = Object.keys(v).filter((k) => !KEYS.includes(k));
  if (unknown.length) throw new ConfigError(`unknown key "${unknown[0]}" (known: ${KEYS.join(', ')})`);

  let url: URL;
  try { url = new URL(str(v, 'server_url', true)!); } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError('"server_url" is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError('"server_url" must be an http:// or https:// URL');
  const insecure = v.allow_insecure_http ?? false;
  if (typeof insecure !== 'boolean') throw new ConfigError('"allow_insecure_http" must be true or false');
  if (url.protocol === 'http:' && !insecure && !isLoopbackHost(url)) {
    throw new ConfigError('"server_url" is plain http://: the device_id and the tunnel keys would cross the network readable; '
      + 'use https:// (with "ca_file" for a self-signed certificate), or set "allow_insecure_http": true to accept that');
  }

  if (v.hwid !== undefined && v.hwid_file !== undefined) throw new ConfigError('give "hwid" or "hwid_file", not both');
  const hwidFile = str(v, 'hwid_file', false) ?? '/etc/machine-id';
  const hwid = v.hwid !== undefined ? str(v, 'hwid', true)! : readFile(hwidFile, 'hwid_file').trim();
  if (!HWID.test(hwid)) throw new ConfigError(`"${v.hwid !== undefined ? 'hwid' : 'hwid_file'}": the hardware id must be 1 to 128 printable ASCII characters without spaces`);

  const caFile = str(v, 'ca_file', false);
  const iface = str(v, 'interface', false) ?? 'wgcp0';
  if (!IFNAME.test(iface)) throw new ConfigError('"interface" must be 1 to 15 letters, digits or _.=+-');
  const stateDir = str(v, 'state_dir', false) ?? '/var/lib/wgcp-agent';
  if (!path.isAbsolute(stateDir)) throw new ConfigError('"state_dir" must be an absolute path');
  const interval = v.heartbeat_interval_s ?? 30;
  if (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 1 || interval > 86400) {
    throw new ConfigError('"heartbeat_interval_s" must be an integer from 1 to 86400');
  }
  const networks = v.networks ?? null;
  if (networks !== null && (!Array.isArray(networks) || networks.length > 64 || !networks.every((n) => typeof n === 'string' && isCidr(n) && n.includes('/')))) {
    throw new ConfigError('"networks" must be a list of at most 64 prefixes such as "192.168.50.0/24" or "fd50::/64"');
  }
  return {
    server_url: url,
    token: str(v, 'token', true)!,
    server_salt: str(v, 'server_salt', true)!,
    hwid,
    ca: caFile === undefined ? null : readFile(caFile, 'ca_file'),
    interface: iface,
    state_dir: stateDir,
    heartbeat_interval_s: interval,
    networks: networks as string[] | null,
  };
}

export function loadConfigFile(file: string): AgentConfig {
  const text = readFile(file, 'configuration file');
  let value: unknown;
  try { value = JSON.parse(text); } catch (err) {
    throw new ConfigError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return parseConfig(value);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${file}: ${err.message}`);
    throw err;
  }
}

/** The place an endpoint path lands under server_url, keeping a path prefix if it has one. */
export function endpointUrl(base: URL, route: string): URL {
  const prefix = base.pathname.endsWith('/') ? base.pathname : base.pathname + '/';
  return new URL(prefix + route.replace(/^\//, ''), base);
}

/**
 * What `status` needs of the file: the state folder, taken without reading the files the
 * configuration names (an unreadable ca_file or hwid_file must not hide where the agent
 * stands), and the problem the whole file has, if any.
 */
export function statusConfig(file: string): { stateDir: string; problem: string | null } {
  const text = readFile(file, 'configuration file');
  let value: any;
  try { value = JSON.parse(text); } catch (err) {
    throw new ConfigError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const stateDir = value?.state_dir ?? '/var/lib/wgcp-agent';
  if (typeof stateDir !== 'string' || !path.isAbsolute(stateDir)) throw new ConfigError(`${file}: "state_dir" must be an absolute path`);
  try {
    parseConfig(value);
    return { stateDir, problem: null };
  } catch (err) {
    if (err instanceof ConfigError) return { stateDir, problem: `${file}: ${err.message}` };
    throw err;
  }
}
