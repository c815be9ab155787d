// Starts the real daemon in this process on port 0 with a fresh data folder, and talks
// to it over real HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config';
import { startDaemon, type Daemon, type DaemonOptions } from '../../src/daemon';
import { silentLogger } from '../../src/log';

export interface TestDaemon {
  daemon: Daemon;
  url: string;
  key: string;
  dataDir: string;
  config: Config;
  stop(): Promise<void>;
}

// Folders made here outlive a daemon's stop (suites restart daemons on them) and go when
// the test process exits.
const made: string[] = [];
process.once('exit', () => { for (const dir of made) fs.rmSync(dir, { recursive: true, force: true }); });

export function tempDir(prefix = 'wgcp-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export async function startTestDaemon(opts: { dataDir?: string; env?: Record<string, string>; options?: DaemonOptions } = {}): Promise<TestDaemon> {
  const dataDir = opts.dataDir ?? tempDir();
  const config = loadConfig({ WGCP_DATA_DIR: dataDir, WGCP_LISTEN: '127.0.0.1:0', WGCP_KERNEL: 'off', ...opts.env });
  const daemon = await startDaemon(config, { log: silentLogger, ...opts.options });
  const keyFile = path.join(dataDir, 'api-key');
  const key = config.apiKey ?? fs.readFileSync(keyFile, 'utf8').trim();
  return { daemon, url: `http://127.0.0.1:${daemon.port}`, key, dataDir, config, stop: () => daemon.close() };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
  json: any;
}

/** One request; `body` objects are sent as JSON, strings as they are. */
export async function call(base: string, method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(base + pathname, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let json: unknown;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, bytes, json };
}

/** A client bound to one daemon and its API key. */
export function client(d: Pick<TestDaemon, 'url' | 'key'>) {
  const auth = { 'wg-control-key': d.key };
  return {
    get: (p: string) => call(d.url, 'GET', p, undefined, auth),
    post: (p: string, body: unknown) => call(d.url, 'POST', p, body, auth),
    put: (p: string, body: unknown) => call(d.url, 'PUT', p, body, auth),
    del: (p: string) => call(d.url, 'DELETE', p, undefined, auth),
  };
}
