// Runs the real wgcpd as a child inside a network namespace (the "router"), with its own
// mount namespace so that its wireguard-go sockets (/run/wireguard) are private to it, and
// talks to its API from inside that namespace.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Netns } from './netns';
import { sh } from './netns';
import { tempDir } from './daemon';
import { PID_FILE } from '../../src/backup/daemon-reload';

const readOr = (file: string): string => { try { return fs.readFileSync(file, 'utf8'); } catch { return ''; } };

const run = promisify(execFile);
const MAIN = path.join(__dirname, '../../src/main.js');
const CLI = path.join(__dirname, '../../src/cli/main.js');
const FETCH = path.join(__dirname, 'ns-fetch.js');
// A fixed script (no caller text in it): a private tmpfs on /run/wireguard, then the command.
const PRIVATE_RUN = 'mkdir -p /run/wireguard && mount -t tmpfs wgcp-test-run /run/wireguard && exec "$@"';
// As under systemd's ProtectKernelTunables=yes: /proc/sys read-only for the daemon alone.
const READ_ONLY_SYSCTL = 'mount --bind /proc/sys /proc/sys && mount -o remount,ro,bind /proc/sys && ';

export interface NsAnswer { status: number; text: string; json: any }

export interface NsDaemon {
  ns: Netns;
  dataDir: string;
  pid: number;
  key: string;
  output(): string;
  api(method: string, pathname: string, body?: unknown): Promise<NsAnswer>;
  /** Runs a tool in the daemon's network and mount namespaces (to see its wireguard-go sockets). */
  exec(cmd: string, args: string[]): string;
  stop(): Promise<number | null>;
}

export async function nsRequest(ns: Netns, url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<NsAnswer> {
  const req = JSON.stringify({ url, method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const child = run('ip', ['netns', 'exec', ns.name, process.execPath, FETCH], { encoding: 'utf8' });
  child.child.stdin!.end(req);
  const { stdout } = await child;
  const res = JSON.parse(stdout) as { status: number; text: string };
  let json: unknown;
  try { json = JSON.parse(res.text); } catch { json = undefined; }
  return { ...res, json };
}

/** Starts wgcpd in `ns` listening on 127.0.0.1:8080 there; resolves once it has started (its pid file) and /healthz answers. */
export async function startNsDaemon(ns: Netns, opts: { dataDir?: string; env?: Record<string, string>; readOnlySysctl?: boolean } = {}): Promise<NsDaemon> {
  const dataDir = opts.dataDir ?? tempDir('wgcp-ns-');
  const env = { ...process.env, WGCP_DATA_DIR: dataDir, WGCP_LISTEN: '127.0.0.1:8080', WGCP_KERNEL: 'on', WGCP_LOG_LEVEL: 'info', ...opts.env };
  const child: ChildProcess = spawn('ip', ['netns', 'exec', ns.name, 'unshare', '--mount', '--propagation', 'private', '--',
    'sh', '-c', (opts.readOnlySysctl ? READ_ONLY_SYSCTL : '') + PRIVATE_RUN, 'sh', process.execPath, MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = 'http://127.0.0.1:8080';
  // Ready is when wgcpd writes its own pid to its pid file (after it listens, src/main.ts): a
  // file read, not a request spawned every 100 ms, and no deadline a loaded machine misses.
  // A file left by a killed daemon names another pid. A hung start ends with the file's timeout.
  const pidFile = path.join(dataDir, PID_FILE);
  while (readOr(pidFile).trim() !== String(child.pid)) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`wgcpd exited with ${child.exitCode ?? child.signalCode} before it was ready:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const health = await nsRequest(ns, `${url}/healthz`, 'GET', {});
  if (health.status !== 200) { child.kill('SIGKILL'); throw new Error(`wgcpd wrote its pid file but /healthz answered ${health.status}:\n${out}`); }
  // A key given in the environment (a pair of routers shares one) makes no api-key file.
  const key = opts.env?.WGCP_API_KEY ?? fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  const pid = child.pid!;
  return {
    ns, dataDir, pid, key,
    output: () => out,
    api: (method, pathname, body) => nsRequest(ns, url + pathname, method, { 'wg-control-key': key }, body),
    exec: (cmd, args) => sh('nsenter', ['--target', String(pid), '--mount', '--net', cmd, ...args]),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** A command run by root without any capability: nothing in its bounding or inheritable set survives the exec. */
export const WITHOUT_CAPABILITIES = ['setpriv', '--bounding-set=-all', '--inh-caps=-all', '--'];

/** `wgcp check` in the daemon's namespaces (it sees the same links and tables): its exit code and what it printed (stderr only when it failed). */
export function wgcpCheck(d: NsDaemon, env: string[] = [], opts: { withoutCapabilities?: boolean; args?: string[] } = {}): { code: number; out: string; err: string } {
  try {
    const argv = [process.execPath, CLI, '--data-dir', d.dataDir, 'check', ...(opts.args ?? [])];
    const withEnv = env.length ? ['env', ...env, ...argv] : argv;
    // Root still, and the socket's owner, but with no capability at all (no CAP_NET_ADMIN): as OpenWrt's wgcp.
    const command = opts.withoutCapabilities ? [...WITHOUT_CAPABILITIES, ...withEnv] : withEnv;
    return { code: 0, out: d.exec(command[0], command.slice(1)), err: '' };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: e.stdout, err: e.stderr };
  }
}
