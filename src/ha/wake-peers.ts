// The wake-up on promotion. The standby holds every peer and key but no session: clients keep
// sending to the virtual address, and each would wait out its own rekey timer (5 to 15 s, or
// until it next has traffic) before it handshakes with the new primary. So the new primary
// starts the handshakes itself, to every enabled peer whose endpoint the old primary last saw
// (replicated with the usage cycle, store.ha.endpoints()).
//
// The kernel means: turning a peer's persistent keepalive on (from off) makes WireGuard send a
// keepalive at once (the kernel module and wireguard-go both do), and with no session that
// keepalive is staged behind a handshake initiation, retried every 5 s like any other. So one
// `wg set` per interface carries every peer's endpoint and `persistent-keepalive 1`, and a
// second turns the keepalive off again (wgcp holds peers without one; the reconciler would
// call one drift): two processes per interface, whatever the number of peers.
//
// The initiation leaves by the route to the client; that route must pick the virtual address
// as its source (keepalived's virtual_routes, docs/ha.md), or the client roams to this
// router's own address and loses the next failover.
import type { App } from '../app';
import { run } from '../exec/command';
import type { Logger } from '../log';
import { onPromoted } from './pair';

export interface WakeTarget { ifname: string; publicKey: string; endpoint: string }
export type ToolRunner = (tool: string, args: string[]) => Promise<unknown>;
export interface WakeResult { interfaces: number; peers: number; failed: string[] }

/** An endpoint `wg set` takes: IPv4 `a.b.c.d:port` or IPv6 `[addr]:port`, nothing else (no names to resolve). */
const ENDPOINT = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]):\d{1,5}$/;

/** Pure: the `wg set` argument lists, one pair per interface: wake (endpoint, keepalive on) and restore (keepalive off). */
export function wakeCommands(targets: readonly WakeTarget[]): Array<{ ifname: string; peers: number; wake: string[]; restore: string[] }> {
  const byIf = new Map<string, WakeTarget[]>();
  for (const t of targets) {
    if (!ENDPOINT.test(t.endpoint)) continue;
    const list = byIf.get(t.ifname);
    if (list) list.push(t); else byIf.set(t.ifname, [t]);
  }
  return [...byIf].map(([ifname, list]) => ({
    ifname,
    peers: list.length,
    wake: ['set', ifname, ...list.flatMap((t) => ['peer', t.publicKey, 'endpoint', t.endpoint, 'persistent-keepalive', '1'])],
    restore: ['set', ifname, ...list.flatMap((t) => ['peer', t.publicKey, 'persistent-keepalive', '0'])],
  }));
}

/** Who to wake, read from the store: enabled peers of servers up in the kernel, with a last-known endpoint. */
export function wakeTargets(app: App): WakeTarget[] {
  const endpoints = new Map(app.store.ha.endpoints().map((e) => [e.peerId, e.endpoint]));
  if (endpoints.size === 0 || app.kernel.state !== 'on') return [];
  const targets: WakeTarget[] = [];
  for (const server of app.store.servers.list()) {
    if (app.kernel.serverState(server.id).state !== 'up') continue;
    for (const p of app.store.peers.kernelPeersOf(server.id)) {
      const endpoint = endpoints.get(p.id);
      if (p.enabled && endpoint) targets.push({ ifname: server.interface, publicKey: p.publicKey, endpoint });
    }
  }
  return targets;
}

/** Wakes the targets: per interface one `wg set` that starts the handshakes, then one that restores the keepalive. */
export async function wakePeers(targets: readonly WakeTarget[], tool: ToolRunner = run): Promise<WakeResult> {
  const result: WakeResult = { interfaces: 0, peers: 0, failed: [] };
  for (const c of wakeCommands(targets)) {
    try {
      await tool('wg', c.wake);
      result.interfaces++;
      result.peers += c.peers;
    } catch (err) {
      result.failed.push(`${c.ifname}: ${err instanceof Error ? err.message : String(err)}`);
    }
    // Restored even after a failed wake: a part of it may have been applied.
    try { await tool('wg', c.restore); } catch (err) { result.failed.push(`${c.ifname} (keepalive off): ${err instanceof Error ? err.message : String(err)}`); }
  }
  return result;
}

/** After each promotion: the wake-up, in its turn of the change runner (no peer changes under it). */
export function wakeOnPromotion(app: App, log: Logger): void {
  onPromoted(app, () => app.runner.serialize('ha.wake-peers', async () => {
    const started = Date.now();
    const result = await wakePeers(wakeTargets(app));
    const fields = { peers: result.peers, interfaces: result.interfaces, ms: Date.now() - started };
    if (result.failed.length) log.warn('promotion: some peers were not woken', { ...fields, failed: result.failed });
    else log.info('promotion: handshakes started with the peers whose endpoint is known', fields);
  }));
}
