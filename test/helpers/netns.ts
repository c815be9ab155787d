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

/** Turns on IPv4 and IPv6 forwarding inside `ns` (a router, a site, a device with a LAN). */
export function forwarding(ns: Netns): void {
  ns.exec('sysctl', ['-qw', 'net.ipv4.ip_forward=1']);
  ns.exec('sysctl', ['-qw', 'net.ipv6.conf.all.forwarding=1']);
}

/**
 * A host namespace behind `via` in both families: `${v4}.1/24` and `${v6}::1/64` on `via`'s side,
 * `.2` and `::2` on the host's, whose default routes go through `via`.
 */
export function hostBehind(via: Netns, label: string, v4: string, v6: string): Netns {
  const host = new Netns(label);
  const l = linkNamespaces(via, `${v4}.1/24`, host, `${v4}.2/24`);
  via.exec('ip', ['address', 'add', `${v6}::1/64`, 'dev', l.aIf, 'nodad']);
  host.exec('ip', ['address', 'add', `${v6}::2/64`, 'dev', l.bIf, 'nodad']);
  host.exec('ip', ['route', 'add', 'default', 'via', `${v4}.1`]);
  host.exec('ip', ['-6', 'route', 'add', 'default', 'via', `${v6}::1`]);
  return host;
}

/** True when `ip` answers one of five pings from `ns` (a fresh tunnel's first packets may be lost). */
export function pings(ns: Netns, ip: string): boolean {
  for (let i = 0; i < 5; i++) { try { ns.exec('ping', ['-c', '1', '-W', '2', ip]); return true; } catch { /* the next try */ } }
  return false;
}
