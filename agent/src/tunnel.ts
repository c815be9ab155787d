// Runs the tunnel: a kernel WireGuard link, or wireguard-go where the kernel has none.
// Bringing it up always starts from nothing, so a rebuild after a crash is the same path.
import { execFile } from 'node:child_process';
import type { Logger } from './log';
import type { TunnelConfig } from './payload';
import { fullTunnelFamilies, fullTunnelRuleDeletes, parseLatestHandshake, upCommands, type Command } from './tunnel-plan';

export interface TunnelStatus { present: boolean; lastHandshake: Date | null }

export interface Tunnel {
  /** Tears down whatever runs under the name, then brings the tunnel up from `cfg`. */
  up(cfg: TunnelConfig): Promise<void>;
  down(): Promise<void>;
  inspect(): Promise<TunnelStatus>;
}

export class CommandError extends Error {}

export function run(c: Command, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(c.cmd, c.args, { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
      // Never echo the input: it holds the keys.
      if (err) reject(new CommandError(`${c.cmd} ${c.args.slice(0, 3).join(' ')} failed: ${(stderr || err.message).trim()}`));
      else resolve(stdout);
    });
    child.stdin?.end(c.input ?? '');
  });
}

export class WgTunnel implements Tunnel {
  private backend: 'kernel' | 'wireguard-go' | null = null;
  private fullFamilies: ('-4' | '-6')[] = ['-4', '-6'];

  constructor(private readonly ifname: string, private readonly log: Logger) {}

  async up(cfg: TunnelConfig): Promise<void> {
    await this.down();
    await this.createLink();
    try {
      for (const c of upCommands(this.ifname, cfg)) await run(c);
      this.fullFamilies = fullTunnelFamilies(cfg);
    } catch (err) {
      this.fullFamilies = ['-4', '-6'];
      await this.down();
      throw err;
    }
  }

  async down(): Promise<void> {
    // After a restart nothing says whether a full tunnel ran: then every rule is tried.
    for (const family of this.fullFamilies) {
      for (const c of fullTunnelRuleDeletes(family)) {
        // `ip rule add` may have run more than once (a crash between add and persist).
        for (let i = 0; i < 8; i++) { try { await run(c); } catch { break; } }
      }
    }
    this.fullFamilies = [];
    try { await run({ cmd: 'ip', args: ['link', 'del', 'dev', this.ifname] }); } catch { /* not there */ }
  }

  async inspect(): Promise<TunnelStatus> {
    try {
      const out = await run({ cmd: 'wg', args: ['show', this.ifname, 'latest-handshakes'] });
      return { present: true, lastHandshake: parseLatestHandshake(out) };
    } catch {
      return { present: false, lastHandshake: null };
    }
  }

  private async createLink(): Promise<void> {
    if (this.backend !== 'wireguard-go') {
      try {
        await run({ cmd: 'ip', args: ['link', 'add', 'dev', this.ifname, 'type', 'wireguard'] });
        if (this.backend === null) this.log.info('tunnel uses the kernel WireGuard module', { interface: this.ifname });
        this.backend = 'kernel';
        return;
      } catch (err) {
        if (this.backend === 'kernel') throw err;
      }
    }
    // wireguard-go detaches once the link exists; deleting the link ends it.
    await run({ cmd: 'wireguard-go', args: [this.ifname] }, 30_000);
    if (this.backend === null) this.log.info('the kernel has no WireGuard module: tunnel uses wireguard-go', { interface: this.ifname });
    this.backend = 'wireguard-go';
  }
}
