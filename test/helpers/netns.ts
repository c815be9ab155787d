// Network namespaces made by a test and removed by it, with the processes started in them.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';

export function sh(cmd: string, args: string[], input?: string): string {
  return execFileSync(cmd, args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

export class Netns {
  readonly name: string;
  private readonly children: ChildProcess[] = [];

  constructor(label: string) {
    this.name = `wgcpt-${label}-${crypto.randomBytes(3).toString('hex')}`;
    sh('ip', ['netns', 'add', this.name]);
    this.exec('ip', ['link', 'set', 'lo', 'up']);
  }

  exec(cmd: string, args: string[], input?: string): string {
    return sh('ip', ['netns', 'exec', this.name, cmd, ...args], input);
  }

  /** Starts a long-running process in the namespace; it is killed on destroy(). */
  spawn(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
    const child = spawn('ip', ['netns', 'exec', this.name, cmd, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    return child;
  }

  destroy(): void {
    for (const c of this.children) if (c.exitCode === null) c.kill('SIGKILL');
    try {
      // Kill anything else still running in the namespace (wireguard-go daemonises).
      const pids = sh('ip', ['netns', 'pids', this.name]).split(/\s+/).filter(Boolean);
      for (const pid of pids) { try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ } }
    } catch { /* namespace already gone */ }
    try { sh('ip', ['netns', 'del', this.name]); } catch { /* already gone */ }
  }
}

/** Links two namespaces with a veth pair and gives each end an address. */
export function linkNamespaces(a: Netns, aAddr: string, b: Netns, bAddr: string): { aIf: string; bIf: string } {
  const tag = crypto.randomBytes(3).toString('hex');
  const aIf = `va${tag}`;
  const bIf = `vb${tag}`;
  sh('ip', ['link', 'add', aIf, 'netns', a.name, 'type', 'veth', 'peer', 'name', bIf, 'netns', b.name]);
  a.exec('ip', ['addr', 'add', aAddr, 'dev', aIf]);
  a.exec('ip', ['link', 'set', aIf, 'up']);
  b.exec('ip', ['addr', 'add', bAddr, 'dev', bIf]);
  b.exec('ip', ['link', 'set', bIf, 'up']);
  return { aIf, bIf };
}
