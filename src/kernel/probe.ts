// Can this process drive the kernel? Checks the tools and the privilege, which `ip` there
// is (iproute2, or BusyBox's applet as on a stock OpenWrt: no -V, -j or -d, which wgcp
// does not use), and which WireGuard: the kernel module (a probe link) or wireguard-go.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { runSync as run, succeedsSync as succeeds } from '../exec/command';

export type IpTool = 'iproute2' | 'busybox';
export type Probe = { ok: true; wireguard: 'kernel' | 'wireguard-go'; ip: IpTool } | { ok: false; reason: string };

function firstFailure(tool: string, args: string[]): string | null {
  try {
    run(tool, args, { timeoutMs: 10_000 });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Which `ip` is on PATH: iproute2 answers `ip -V`; BusyBox's applet refuses it (usage,
 * exit 1) but lists the loopback link. Anything else cannot be used.
 */
export function probeIp(): { ok: true; ip: IpTool } | { ok: false; reason: string } {
  try {
    if (/iproute2/.test(run('ip', ['-V'], { timeoutMs: 10_000 }))) return { ok: true, ip: 'iproute2' };
  } catch { /* not iproute2's: BusyBox's applet has no -V */ }
  const failed = firstFailure('ip', ['link', 'show', 'dev', 'lo']);
  if (failed) return { ok: false, reason: `ip cannot be run (${failed})` };
  return { ok: true, ip: 'busybox' };
}

export function probeKernel(): Probe {
  const ip = probeIp();
  if (!ip.ok) return ip;
  for (const [tool, args] of [['wg', ['--version']], ['nft', ['--version']]] as const) {
    const failed = firstFailure(tool, [...args]);
    if (failed) return { ok: false, reason: `${tool} cannot be run (${failed})` };
  }
  // Listing the ruleset needs CAP_NET_ADMIN: this is the privilege check.
  const denied = firstFailure('nft', ['list', 'tables']);
  if (denied) return { ok: false, reason: `nftables cannot be used, missing privileges? (${denied})` };
  const probe = `wgcpprobe${crypto.randomBytes(2).toString('hex')}`;
  if (succeeds('ip', ['link', 'add', 'dev', probe, 'type', 'wireguard'])) {
    succeeds('ip', ['link', 'del', 'dev', probe]);
    return { ok: true, wireguard: 'kernel', ip: ip.ip };
  }
  if (!succeeds('wireguard-go', ['--version'])) {
    return { ok: false, reason: 'the kernel has no WireGuard module and wireguard-go is not installed' };
  }
  if (!fs.existsSync('/dev/net/tun')) return { ok: false, reason: 'the kernel has no WireGuard module and /dev/net/tun is missing for wireguard-go' };
  // CAP_NET_ADMIN does not open a 0600 root-owned device for another user: wireguard-go
  // would fail at the first server instead of here.
  try {
    fs.accessSync('/dev/net/tun', fs.constants.R_OK | fs.constants.W_OK);
  } catch {
    return { ok: false, reason: 'the kernel has no WireGuard module and this user cannot open /dev/net/tun for wireguard-go (it is 0666 on a usual system)' };
  }
  return { ok: true, wireguard: 'wireguard-go', ip: ip.ip };
}
