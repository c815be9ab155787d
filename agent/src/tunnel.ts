// Runs the tunnel: a kernel WireGuard link, or wireguard-go where the kernel has none.
// Bringing it up always starts from nothing, so a rebuild after a crash is the same path.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from './log';
import type { TunnelConfig } from './payload';
import { fullTunnelFamilies, fullTunnelRuleDeletes, parseLatestHandshake, upCommands, wgConfText, type Command } from './tunnel-plan';

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
      if (err) reject(new CommandError(`${c.cmd} ${c.args.slice(0, 3).join(' ')} failed: ${(stderr || err.message).trim()}`));
      else resolve(stdout);
    });
    child.stdin?.on('error', () => { /* the command may exit before stdin closes */ });
    child.stdin?.end();
  });
}

export type Runner = (c: Command, timeoutMs?: number) => Promise<string>;

export class WgTunnel implements Tunnel {
  private backend: 'kernel' | 'wireguard-go' | null = null;
  private fullFamilies: ('-4' | '-6')[] = ['-4', '-6'];

  /** `exec` runs each command (tests wrap it in `ip netns exec`). */
  constructor(private readonly ifname: string, private readonly log: Logger, private readonly exec: Runner = run) {}

  async up(cfg: TunnelConfig): Promise<void> {
    await this.down();
    await this.createLink();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-agent-'));
    try {
      const confFile = path.join(dir, 'wg.conf');
      fs.writeFileSync(confFile, wgConfText(cfg), { mode: 0o600 });
      for (const c of upCommands(this.ifname, cfg, confFile)) await this.exec(c);
      this.fullFamilies = fullTunnelFamilies(cfg);
    } catch (err) {
      this.fullFamilies = ['-4', '-6'];
      await this.down();
      throw err;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  async down(): Promise<void> {
    // After a restart nothing says whether a full tunnel ran: then every rule is tried.
    for (const family of this.fullFamilies) {
      for (const c of fullTunnelRuleDeletes(family)) {
        // `ip rule add` may have run more than once (a crash between add and persist).
        for (let i = 0; i < 8; i++) { try { await this.exec(c); } catch { break; } }
      }
    }
    this.fullFamilies = [];
    try { await this.exec({ cmd: 'ip', args: ['link', 'del', 'dev', this.ifname] }); } catch { /* not there */ }
  }

  async inspect(): Promise<TunnelStatus> {
    try {
      const out = await this.exec({ cmd: 'wg', args: ['show', this.ifname, 'latest-handshakes'] });
      return { present: true, lastHandshake: parseLatestHandshake(out) };
    } catch {
      return { present: false, lastHandshake: null };
    }
  }

  private async createLink(): Promise<void> {
    if (this.backend !== 'wireguard-go') {
      try {
        await this.exec({ cmd: 'ip', args: ['link', 'add', 'dev', this.ifname, 'type', 'wireguard'] });
        if (this.backend === null) this.log.info('tunnel uses the kernel WireGuard module', { interface: this.ifname });
        this.backend = 'kernel';
        return;
      } catch (err) {
        if (this.backend === 'kernel') throw err;
      }
    }
    // wireguard-go detaches once the link exists; deleting the link ends it, but not at
    // once: a new one under the same name fails while the old one still holds its socket.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.exec({ cmd: 'wireguard-go', args: [this.ifname] }, 30_000);
        break;
      } catch (err) {
        if (attempt >= 15) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    if (this.backend === null) this.log.info('the kernel has no WireGuard module: tunnel uses wireguard-go', { interface: this.ifname });
    this.backend = 'wireguard-go';
  }
}
