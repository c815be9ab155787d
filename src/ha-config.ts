// The standby pair's settings (docs/configuration.md, docs/ha.md), read with the rest of the
// environment. No WGCP_HA_PARTNER: this router is alone and none of the others matter.
//
// Interface (stable): loadHaConfig(env) -> HaConfig | null; readHaKey(file) -> Buffer.
import fs from 'node:fs';

export interface HaConfig {
  /** The partner's channel, as `http://host:port` (its WGCP_HA_LISTEN). */
  partner: URL;
  /** Where this router serves its journal to the partner. */
  listen: { host: string; port: number };
  /** The shared secret's file (mode 0600 or stricter); the key itself is read at start. */
  keyFile: string;
  /** The address keepalived moves: a router promotes itself only while it holds it (null: not checked). */
  virtualAddress: string | null;
  /** How long a change waits for the standby to hold it before the primary goes on alone. */
  ackWaitMs: number;
  /** Changes the journal keeps for a standby that was away; older ones mean a snapshot. */
  journalKeep: number;
  /** How often the usage cycle's totals are sent to the standby (0: every cycle). */
  usageEveryS: number;
}

export class HaConfigError extends Error {}

const nonEmpty = (env: NodeJS.ProcessEnv, name: string): string | null => (env[name] === undefined || env[name] === '' ? null : env[name]!);

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const v = nonEmpty(env, name) ?? String(fallback);
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new HaConfigError(`${name} must be a whole number from ${min} to ${max}, got "${v}"`);
  return Number(v);
}

export function loadHaConfig(env: NodeJS.ProcessEnv): HaConfig | null {
  const partner = nonEmpty(env, 'WGCP_HA_PARTNER');
  if (partner === null) return null;
  let url: URL;
  try {
    url = new URL(partner);
  } catch {
    throw new HaConfigError(`WGCP_HA_PARTNER must be a URL such as http://192.0.2.2:7480, got "${partner}"`);
  }
  if (url.protocol !== 'http:') throw new HaConfigError('WGCP_HA_PARTNER must be an http:// URL (each request is signed with the shared key)');
  const listen = nonEmpty(env, 'WGCP_HA_LISTEN');
  const m = listen === null ? null : /^(\[[0-9a-fA-F:]+\]|[^:]+):(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) > 65535) throw new HaConfigError(`WGCP_HA_LISTEN must be host:port when WGCP_HA_PARTNER is set, got "${listen ?? ''}"`);
  const keyFile = nonEmpty(env, 'WGCP_HA_KEY_FILE');
  if (keyFile === null) throw new HaConfigError('WGCP_HA_KEY_FILE must name the shared key file when WGCP_HA_PARTNER is set');
  return {
    partner: url,
    listen: { host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) },
    keyFile,
    virtualAddress: nonEmpty(env, 'WGCP_HA_VIRTUAL_ADDRESS'),
    ackWaitMs: whole(env, 'WGCP_HA_ACK_WAIT_MS', 2000, 0, 60_000),
    journalKeep: whole(env, 'WGCP_HA_JOURNAL_KEEP', 10_000, 10, 10_000_000),
    usageEveryS: whole(env, 'WGCP_HA_USAGE_EVERY_S', 600, 0, 86_400),
  };
}

/** The shared key: refused when others may read the file (it is as good as the router's API key). */
export function readHaKey(file: string): Buffer {
  const st = fs.statSync(file);
  if ((st.mode & 0o077) !== 0) throw new HaConfigError(`WGCP_HA_KEY_FILE ${file} has mode ${(st.mode & 0o777).toString(8)}: make it 600 (chmod 600), the key must be the owner's alone`);
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'utf8');
  if (key.length < 16) throw new HaConfigError(`WGCP_HA_KEY_FILE ${file} holds fewer than 16 characters: use a long random key (openssl rand -hex 32)`);
  return key;
}
