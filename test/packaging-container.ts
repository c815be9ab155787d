// A fresh Debian root (packaging/ci/debian-root.sh, cached debootstrap) booted with its own
// systemd as PID 1 under systemd-nspawn, in a private network namespace (loopback only),
// so that the packages are installed, started, upgraded and purged as on a real machine.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canRun } from './helpers/root';

const REPO = path.join(__dirname, '..', '..');
const CLEAN_ENV = ['PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'HOME=/root', 'LANG=C.UTF-8', 'SYSTEMD_PAGER=', 'DEBIAN_FRONTEND=noninteractive'];

export interface Result { code: number; stdout: string; stderr: string }

export function runCommand(cmd: string, args: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: opts.timeoutMs ?? 600_000, maxBuffer: 64 * 1024 * 1024, env: opts.env ?? process.env }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : 1) : 0;
      resolve({ code, stdout: stdout.toString(), stderr: stderr.toString() });
    });
  });
}

export async function mustRun(cmd: string, args: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const r = await runCommand(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.code}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Unpacks a fresh Debian root from the cached debootstrap tarball. */
export async function freshDebianRoot(dest: string): Promise<string> {
  await mustRun(path.join(REPO, 'packaging', 'ci', 'debian-root.sh'), [dest], { timeoutMs: 15 * 60_000 });
  return dest;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export class Container {
  private constructor(private readonly nspawn: ChildProcess, readonly pid: number, readonly root: string, readonly logFile: string) {}

  /** Boots ROOT; `binds` are host folders shown read-only inside (host path -> container path). */
  static async boot(root: string, name: string, binds: Record<string, string>): Promise<Container> {
    const logFile = `${root}.console.log`;
    const log = fs.openSync(logFile, 'w');
    // The machine id is made at first boot, as on a new machine.
    fs.rmSync(path.join(root, 'etc', 'machine-id'), { force: true });
    // The TUN device as a Debian host has it (udev makes it 0666: wgcpd opens it as its own
    // user), from a node of our own: some hosts keep /dev/net/tun at 0600, and the host's
    // node is not ours to change.
    const tun = `${root}.tun`;
    fs.rmSync(tun, { force: true });
    execFileSync('mknod', ['-m', '0666', tun, 'c', '10', '200']);
    const args = ['-D', root, '--boot', '--register=no', '--keep-unit', '--private-network', '-M', name,
      '--console=pipe', `--bind=${tun}:/dev/net/tun`, ...Object.entries(binds).map(([h, c]) => `--bind-ro=${h}:${c}`)];
    // This host mounts cgroup v1 controllers; the container's systemd needs the unified tree.
    const nspawn = spawn('systemd-nspawn', args, { stdio: ['ignore', log, log], env: { ...process.env, SYSTEMD_NSPAWN_UNIFIED_HIERARCHY: '1' } });
    fs.closeSync(log);
    const deadline = Date.now() + 60_000;
    let pid = 0;
    while (Date.now() < deadline && !pid) {
      if (nspawn.exitCode !== null) throw new Error(`systemd-nspawn exited: ${fs.readFileSync(logFile, 'utf8')}`);
      pid = findInit(nspawn.pid!);
      if (!pid) await sleep(200);
    }
    if (!pid) throw new Error('the container did not start systemd');
    const c = new Container(nspawn, pid, root, logFile);
    // Wait until systemd answers and its boot job queue is done.
    for (;;) {
      const state = (await c.run(['systemctl', 'is-system-running'])).stdout.trim();
      if (state && state !== 'initializing' && state !== 'starting' && !state.includes('Failed to connect')) break;
      if (Date.now() > deadline) throw new Error(`the container did not finish booting (${state})`);
      await sleep(300);
    }
    return c;
  }

  /** Runs a command inside the container (all its namespaces), with a clean environment. */
  run(cmd: string[], timeoutMs = 300_000): Promise<Result> {
    return runCommand('nsenter', ['-t', String(this.pid), '-m', '-u', '-i', '-n', '-p', '-C', '--', '/usr/bin/env', '-i', ...CLEAN_ENV, ...cmd], { timeoutMs });
  }

  async must(cmd: string[], timeoutMs?: number): Promise<string> {
    const r = await this.run(cmd, timeoutMs);
    if (r.code !== 0) throw new Error(`in container: ${cmd.join(' ')} failed (${r.code}): ${r.stderr || r.stdout}`);
    return r.stdout;
  }

  /** systemctl show, as a map of the asked properties. */
  async unit(name: string, props: string[]): Promise<Record<string, string>> {
    const out = await this.must(['systemctl', 'show', name, ...props.map((p) => `--property=${p}`)]);
    return Object.fromEntries(out.trim().split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  }

  /** Polls until `check` returns a value (not undefined) or the time is up. */
  async until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await check();
      if (v !== undefined) return v;
      if (Date.now() > deadline) {
        const journal = (await this.run(['journalctl', '-n', '30', '--no-pager'])).stdout;
        throw new Error(`timed out waiting for ${what}; the journal ends with:\n${journal}`);
      }
      await sleep(250);
    }
  }

  /** Powers the container off (falls back to killing it), then removes its root. */
  async destroy(): Promise<void> {
    const exited = new Promise<void>((r) => (this.nspawn.exitCode !== null ? r() : this.nspawn.once('exit', () => r())));
    await this.run(['systemctl', 'poweroff', '--no-block'], 10_000);
    const timer = setTimeout(() => this.nspawn.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
    fs.rmSync(this.root, { recursive: true, force: true });
    fs.rmSync(`${this.root}.tun`, { force: true });
    fs.rmSync(this.logFile, { force: true });
  }
}

/** The container's PID 1 as seen from the host: the nspawn child that runs systemd. */
function findInit(nspawnPid: number): number {
  for (const task of safeList(`/proc/${nspawnPid}/task`)) {
    const children = safeRead(`/proc/${nspawnPid}/task/${task}/children`).trim().split(/\s+/).filter(Boolean);
    for (const child of children) {
      if (safeRead(`/proc/${child}/comm`).trim() === 'systemd') return Number(child);
    }
  }
  return 0;
}

function safeList(dir: string): string[] {
  try { return fs.readdirSync(dir); } catch { return []; }
}

function safeRead(file: string): string {
  try { return fs.readFileSync(file, 'utf8'); } catch { return ''; }
}

const built = new Map<string, string>();

/**
 * Builds the debs with `npm run package:deb` into a temporary folder (once a process).
 * An empty version means the one in package.json.
 */
export async function buildDebs(version = ''): Promise<string> {
  const key = version || 'default';
  const cached = built.get(key);
  if (cached) return cached;
  // A folder of this process's own: other test runs may build in the same tree meanwhile.
  const out = fs.mkdtempSync(path.join(os.tmpdir(), `wgcp-debs-${key}-`));
  process.once('exit', () => fs.rmSync(out, { recursive: true, force: true }));
  const env = { ...process.env, ...(version ? { WGCP_VERSION: version } : {}) };
  await mustRun('npm', ['run', '-s', 'package:deb', '--', out], { env, timeoutMs: 15 * 60_000 });
  built.set(key, out);
  return out;
}

export function packageVersion(): string {
  return JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;
}

export function agentVersion(): string {
  return JSON.parse(fs.readFileSync(path.join(REPO, 'agent', 'package.json'), 'utf8')).version;
}

export const REPO_ROOT = REPO;

/** True when every tool is on PATH; else the suite skips, and says why (test/helpers/root.ts). */
export function haveTools(suiteName: string, tools: string[]): boolean {
  return canRun(suiteName, tools);
}
