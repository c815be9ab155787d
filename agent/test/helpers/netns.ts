// Network namespaces made by a test and removed by it (with whatever runs inside).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run, type Runner } from '../../src/tunnel';

export const sh = (cmd: string, args: string[], input?: string): string =>
  execFileSync(cmd, args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

export class Netns {
  readonly name = `wgcpa-${crypto.randomBytes(3).toString('hex')}`;
  constructor() {
    sh('ip', ['netns', 'add', this.name]);
    this.exec('ip', ['link', 'set', 'lo', 'up']);
  }
  exec(cmd: string, args: string[], input?: string): string { return sh('ip', ['netns', 'exec', this.name, cmd, ...args], input); }
  /** Runs a command with `{file}` in its arguments replaced by a private file holding `secret`. */
  execWithSecret(cmd: string, args: string[], secret: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcpa-secret-'));
    try {
      const file = path.join(dir, 'secret');
      fs.writeFileSync(file, secret, { mode: 0o600 });
      return this.exec(cmd, args.map((a) => (a === '{file}' ? file : a)));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  /** A tunnel command runner that runs inside this namespace. */
  runner(): Runner { return (c, ms) => run({ cmd: 'ip', args: ['netns', 'exec', this.name, c.cmd, ...c.args] }, ms); }
  pids(): number[] { return sh('ip', ['netns', 'pids', this.name]).split(/\s+/).filter(Boolean).map(Number); }
  destroy(): void {
    try { for (const pid of this.pids()) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } } } catch { /* gone */ }
    try { sh('ip', ['netns', 'del', this.name]); } catch { /* gone */ }
  }
}

export function link(a: Netns, aAddr: string, b: Netns, bAddr: string): void {
  const tag = crypto.randomBytes(3).toString('hex');
  sh('ip', ['link', 'add', `va${tag}`, 'netns', a.name, 'type', 'veth', 'peer', 'name', `vb${tag}`, 'netns', b.name]);
  a.exec('ip', ['addr', 'add', aAddr, 'dev', `va${tag}`]);
  a.exec('ip', ['link', 'set', `va${tag}`, 'up']);
  b.exec('ip', ['addr', 'add', bAddr, 'dev', `vb${tag}`]);
  b.exec('ip', ['link', 'set', `vb${tag}`, 'up']);
}
