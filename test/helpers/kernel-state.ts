// A comparable snapshot of what the kernel holds for wgcpd in a namespace: the elements of
// every set and map of `inet wgcp`, the rule count, the wgcp links and their WireGuard peers
// (keys and allowed IPs, without the counters that move with traffic). The router's networks
// (`router_nets`, `router_nets6`) are left out: wgcpd follows the router's routes there every
// few seconds, whatever a change did (a test's new veth is one).
import type { NsDaemon } from './ns-daemon';

export function kernelState(d: NsDaemon): string {
  const items = JSON.parse(d.exec('nft', ['-j', 'list', 'table', 'inet', 'wgcp'])).nftables as Record<string, any>[];
  const sets: Record<string, string[]> = {};
  let rules = 0;
  for (const item of items) {
    const s = item.set ?? item.map;
    if (s && !/^router_nets6?$/.test(s.name)) sets[s.name] = (s.elem ?? []).map((e: unknown) => JSON.stringify(e)).sort();
    if (item.rule) rules++;
  }
  const links = d.exec('ip', ['-o', 'link', 'show']).split('\n').map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1]).filter((n): n is string => !!n && n.startsWith('wgcp')).sort();
  const peers: Record<string, string[]> = {};
  // A link of that name that is not WireGuard (a test's foreign link) is listed, not dumped.
  const wireguard = new Set(d.exec('wg', ['show', 'interfaces']).trim().split(/\s+/));
  for (const l of links.filter((name) => wireguard.has(name))) {
    peers[l] = d.exec('wg', ['show', l, 'dump']).trim().split('\n').slice(1).map((line) => {
      const f = line.split('\t');
      return `${f[0]} ${f[1]} ${f[3]}`;
    }).sort();
  }
  return JSON.stringify({ sets, rules, links, peers }, null, 1);
}

/** Pid of the wireguard-go that serves `ifname` in the namespace, or null. */
export function wireguardGoPid(d: NsDaemon, ifname: string): number | null {
  for (const pid of d.exec('ip', ['netns', 'pids', d.ns.name]).split(/\s+/).filter(Boolean)) {
    try {
      const cmd = require('node:fs').readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd[0].endsWith('wireguard-go') && cmd.includes(ifname)) return Number(pid);
    } catch { /* exited meanwhile */ }
  }
  return null;
}
