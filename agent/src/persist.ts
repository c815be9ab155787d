// The record on disk, replaced atomically: write a temp file, fsync it, rename it over the
// old one, fsync the folder. A power cut leaves either the old record or the new one.
import fs from 'node:fs';
import path from 'node:path';
import { STATES, initialRecord, type AgentRecord } from './machine';

export const STATE_FILE = 'state.json';
const TEMP_PREFIX = `${STATE_FILE}.tmp-`;

export function ensureStateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export function saveRecord(dir: string, record: AgentRecord): void {
  const file = path.join(dir, STATE_FILE);
  const temp = path.join(dir, `${TEMP_PREFIX}${process.pid}`);
  const fd = fs.openSync(temp, 'w', 0o600);
  try {
    fs.fchmodSync(fd, 0o600); // a leftover temp file keeps its old mode otherwise
    fs.writeSync(fd, JSON.stringify(record, null, 1) + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
  const dirFd = fs.openSync(dir, 'r');
  try { fs.fsyncSync(dirFd); } finally { fs.closeSync(dirFd); }
}

export type Loaded = { record: AgentRecord; problem: string | null };

/**
 * The stored record; a fresh one when there is none. An unreadable record (corrupted by a
 * failing disk, edited by hand) also gives a fresh one, with the problem said, so the
 * device provisions again instead of stopping.
 */
export function loadRecord(dir: string): Loaded {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, STATE_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { record: initialRecord(), problem: null };
    return { record: initialRecord(), problem: `cannot read ${STATE_FILE}: ${(err as Error).message}` };
  }
  try {
    return { record: parseRecord(JSON.parse(text)), problem: null };
  } catch (err) {
    return { record: initialRecord(), problem: `${STATE_FILE} is unreadable (${(err as Error).message}); starting fresh` };
  }
}

const nullable = (v: unknown, kind: 'string' | 'boolean'): boolean => v === null || typeof v === kind;

/** A record read from disk or from the running agent (status-socket.ts): checked field by field. */
export function parseRecord(v: any): AgentRecord {
  const ok = v && v.version === 1 && STATES.includes(v.state)
    && nullable(v.sealed_config, 'string') && nullable(v.device_id, 'string') && nullable(v.forwards_hash, 'string')
    && nullable(v.last_heartbeat, 'string') && nullable(v.last_heartbeat_ok, 'boolean') && nullable(v.last_error, 'string')
    && typeof v.tunnel_up === 'boolean' && Number.isInteger(v.failures) && v.failures >= 0;
  if (!ok) throw new Error('fields are missing or of the wrong type');
  const r = initialRecord();
  for (const k of Object.keys(r) as (keyof AgentRecord)[]) (r as any)[k] = v[k];
  return r;
}

/** Temp files left by a cut between write and rename; the record they held never counted. */
export function removeLeftovers(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith(TEMP_PREFIX)) fs.rmSync(path.join(dir, name), { force: true });
  }
}
