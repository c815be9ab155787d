// Daemon configuration from the environment (DESIGN.md section 7), validated once at start.
import { HaConfigError, loadHaConfig, type HaConfig } from './ha-config';
import path from 'node:path';
import { loadOidcSettings, OidcSettingsError, type OidcSettings } from './access/oidc-settings';

export type KernelMode = 'on' | 'off' | 'auto';
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export interface HostPort { host: string; port: number }

export interface Config {
  dataDir: string;
  listen: HostPort;
  deviceListen: HostPort | null;
  /** WGCP_METRICS_LISTEN: GET /metrics alone, without credentials, on its own address; null: not served apart. */
  metricsListen: HostPort | null;
  tlsCert: string | null;
  tlsKey: string | null;
  apiKey: string | null;
  serverSalt: string | null;
  kernel: KernelMode;
  usageIntervalS: number;
  /** Heartbeat answers kept in memory at most (0: none kept). */
  heartbeatCache: number;
  /** Seconds between writes of the devices' newest heartbeat reports (flash wear). */
  heartbeatFlushS: number;
  /** The WAN interfaces port forwards apply to; null: those holding a default route, followed as they change. */
  wanInterfaces: string[] | null;
  logLevel: LogLevel;
  /** WGCP_AUDIT_DAYS: audit log rows older than this are pruned by the daemon. */
  auditDays: number;
  /** WGCP_KERNEL_AUDIT_S: seconds between the reconciler's full compares of the kernel (docs/kernel.md, "Drift"). */
  kernelAuditS: number;
  /** WGCP_DEVICE_RATE: device API requests a second served before 429; 'auto': twice the fleet's steady rate; 0: no limit. */
  deviceRate: number | 'auto';
  /**
   * WGCP_PROVISION_RETRY_WINDOW: seconds after a token's use in which the same token and hwid
   * get the device's configuration again; 0 (the default, the device contract): never.
   */
  provisionRetryWindowS: number;
  /** WGCP_CLOCK_CONFIRM_S: seconds a jumped wall clock must keep step before expiry and the monthly reset act on it (docs/events.md). */
  clockConfirmS: number;
  /** WGCP_PUBLIC_URL: where clients open wgcp (share links are built on it); null: only a Host naming this router is trusted. */
  publicUrl: string | null;
  /** WGCP_OIDC_*: single sign-on for the page (docs/access.md); null: off. */
  oidc: OidcSettings | null;
  /** WGCP_PAGE_KEY_SIGN_IN: whether the page's sign-in takes a key or token (off only with single sign-on; API keys in headers and the CLI are never affected). */
  pageKeySignIn: boolean;
  /** The standby pair (src/ha-config.ts): null alone; absent in a hand-made Config: alone. */
  ha?: HaConfig | null;
}

export class ConfigError extends Error {}

export function parseHostPort(name: string, value: string): HostPort {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.\-]*):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new ConfigError(`${name} must be host:port (for example 127.0.0.1:8080), got "${value}"`);
  const host = m[1].replace(/^\[|\]$/g, '');
  return { host: host || '0.0.0.0', port };
}

/**
 * WGCP_PUBLIC_URL: an http(s) URL with no credentials, query or fragment; a path is a prefix
 * (a reverse proxy's). Returned without its trailing "/".
 */
export function parsePublicUrl(value: string): string {
  const refuse = (why: string) => new ConfigError(`WGCP_PUBLIC_URL must be an http:// or https:// URL such as https://vpn.example.com (${why}), got ${JSON.stringify(value)}`);
  if (!/^[\x21-\x7e]+$/.test(value)) throw refuse('printable ASCII without spaces');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('another scheme');
  if (url.username || url.password || url.search || url.hash || value.includes('?') || value.includes('#')) throw refuse('no user, query or fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

function nonEmpty(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const interval = nonEmpty(env, 'WGCP_USAGE_INTERVAL_S') ?? '60';
  if (!/^\d+$/.test(interval) || Number(interval) < 1 || Number(interval) > 86400) {
    throw new ConfigError(`WGCP_USAGE_INTERVAL_S must be a whole number of seconds from 1 to 86400, got "${interval}"`);
  }
  const kernelAudit = nonEmpty(env, 'WGCP_KERNEL_AUDIT_S') ?? '900';
  if (!/^\d+$/.test(kernelAudit) || Number(kernelAudit) < 1 || Number(kernelAudit) > 86400) {
    throw new ConfigError(`WGCP_KERNEL_AUDIT_S must be a whole number of seconds from 1 to 86400, got "${kernelAudit}"`);
  }
  const cache = nonEmpty(env, 'WGCP_HEARTBEAT_CACHE') ?? '10000';
  if (!/^\d+$/.test(cache) || Number(cache) > 10_000_000) {
    throw new ConfigError(`WGCP_HEARTBEAT_CACHE must be a whole number of devices from 0 to 10000000, got "${cache}"`);
  }
  const flush = nonEmpty(env, 'WGCP_HEARTBEAT_FLUSH_S') ?? '300';
  if (!/^\d+$/.test(flush) || Number(flush) < 1 || Number(flush) > 3600) {
    throw new ConfigError(`WGCP_HEARTBEAT_FLUSH_S must be a whole number of seconds from 1 to 3600, got "${flush}"`);
  }
  const deviceRate = nonEmpty(env, 'WGCP_DEVICE_RATE') ?? 'auto';
  if (deviceRate !== 'auto' && (!/^\d+$/.test(deviceRate) || Number(deviceRate) > 1_000_000)) {
    throw new ConfigError(`WGCP_DEVICE_RATE must be "auto" or a whole number of requests a second from 0 (no limit) to 1000000, got "${deviceRate}"`);
  }
  const retryWindow = nonEmpty(env, 'WGCP_PROVISION_RETRY_WINDOW') ?? '0';
  if (!/^\d+$/.test(retryWindow) || Number(retryWindow) > 3600) {
    throw new ConfigError(`WGCP_PROVISION_RETRY_WINDOW must be a whole number of seconds from 0 (off, the device contract) to 3600, got "${retryWindow}"`);
  }
  const clockConfirm = nonEmpty(env, 'WGCP_CLOCK_CONFIRM_S') ?? '3600';
  if (!/^\d+$/.test(clockConfirm) || Number(clockConfirm) < 1 || Number(clockConfirm) > 604800) {
    throw new ConfigError(`WGCP_CLOCK_CONFIRM_S must be a whole number of seconds from 1 to 604800, got "${clockConfirm}"`);
  }
  const auditDays = nonEmpty(env, 'WGCP_AUDIT_DAYS') ?? '400';
  if (!/^\d+$/.test(auditDays) || Number(auditDays) < 1 || Number(auditDays) > 36500) {
    throw new ConfigError(`WGCP_AUDIT_DAYS must be a whole number of days from 1 to 36500, got "${auditDays}"`);
  }
  const tlsCert = nonEmpty(env, 'WGCP_TLS_CERT');
  const tlsKey = nonEmpty(env, 'WGCP_TLS_KEY');
  if ((tlsCert === null) !== (tlsKey === null)) {
    throw new ConfigError('WGCP_TLS_CERT and WGCP_TLS_KEY must be set together');
  }
  const apiKey = nonEmpty(env, 'WGCP_API_KEY');
  if (apiKey !== null && apiKey.length < 16) throw new ConfigError('WGCP_API_KEY must be at least 16 characters');
  const salt = nonEmpty(env, 'SERVER_SALT');
  if (salt !== null && salt.length < 16) throw new ConfigError('SERVER_SALT must be at least 16 characters');
  const deviceListen = nonEmpty(env, 'WGCP_DEVICE_LISTEN');
  const metricsListen = nonEmpty(env, 'WGCP_METRICS_LISTEN');
  const publicUrl = nonEmpty(env, 'WGCP_PUBLIC_URL');
  const wan = nonEmpty(env, 'WGCP_WAN_INTERFACES');
  const wanInterfaces = wanInterfacesOf(wan);
  if (wanInterfaces && (wanInterfaces.length === 0 || wanInterfaces.some((n) => !/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/.test(n)))) {
    throw new ConfigError(`WGCP_WAN_INTERFACES must be "auto" or interface names separated by commas, got "${wan}"`);
  }
  const parsedPublicUrl = publicUrl === null ? null : parsePublicUrl(publicUrl);
  let oidc: OidcSettings | null;
  try {
    oidc = loadOidcSettings((name) => nonEmpty(env, name), parsedPublicUrl);
  } catch (err) {
    if (err instanceof OidcSettingsError) throw new ConfigError(err.message);
    throw err;
  }
  const pageKeySignIn = oneOf('WGCP_PAGE_KEY_SIGN_IN', nonEmpty(env, 'WGCP_PAGE_KEY_SIGN_IN') ?? 'on', ['on', 'off'] as const) === 'on';
  // Without single sign-on the page would have no way in at all.
  if (!pageKeySignIn && oidc === null) throw new ConfigError('WGCP_PAGE_KEY_SIGN_IN=off needs single sign-on (WGCP_OIDC_ISSUER): the page would have no sign-in left');
  return {
    dataDir: path.resolve(nonEmpty(env, 'WGCP_DATA_DIR') ?? '/var/lib/wgcp'),
    listen: parseHostPort('WGCP_LISTEN', nonEmpty(env, 'WGCP_LISTEN') ?? '127.0.0.1:8080'),
    deviceListen: deviceListen === null ? null : parseHostPort('WGCP_DEVICE_LISTEN', deviceListen),
    metricsListen: metricsListen === null ? null : parseHostPort('WGCP_METRICS_LISTEN', metricsListen),
    tlsCert,
    tlsKey,
    apiKey,
    serverSalt: salt,
    kernel: oneOf('WGCP_KERNEL', nonEmpty(env, 'WGCP_KERNEL') ?? 'auto', ['on', 'off', 'auto'] as const),
    usageIntervalS: Number(interval),
    heartbeatCache: Number(cache),
    heartbeatFlushS: Number(flush),
    wanInterfaces,
    auditDays: Number(auditDays),
    kernelAuditS: Number(kernelAudit),
    deviceRate: deviceRate === 'auto' ? 'auto' : Number(deviceRate),
    provisionRetryWindowS: Number(retryWindow),
    clockConfirmS: Number(clockConfirm),
    publicUrl: parsedPublicUrl,
    oidc,
    pageKeySignIn,
    ha: haSettings(env),
    logLevel: oneOf('WGCP_LOG_LEVEL', nonEmpty(env, 'WGCP_LOG_LEVEL') ?? 'info', ['error', 'warn', 'info', 'debug'] as const),
  };
}

function haSettings(env: NodeJS.ProcessEnv): HaConfig | null {
  try {
    return loadHaConfig(env);
  } catch (err) {
    if (err instanceof HaConfigError) throw new ConfigError(err.message);
    throw err;
  }
}

/** WGCP_WAN_INTERFACES as names, or null for `auto` (or unset): follow the default routes. One reading for wgcpd and `wgcp check`. */
export function wanInterfacesOf(value: string | null | undefined): string[] | null {
  const v = value?.trim();
  return !v || v === 'auto' ? null : v.split(',').map((s) => s.trim()).filter(Boolean);
}
