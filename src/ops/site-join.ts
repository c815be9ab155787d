// The other side of `wgcp join` (docs/site-to-site.md): a wgcp router B asks to join this
// router with a registration token, its own public key (its private key never leaves it) and
// the LAN behind it. One change: the token is spent and B becomes a peer of the token's
// server, its LAN the peer's `networks` (routed to it, by the rules of every peer's networks),
// linked both ways with this router's networks (lanAccess and reachableFrom "lan": a site
// link joins LANs; narrow them on the peer). B is told what to route into the link: this
// server's subnets and this router's networks, which the peer keeps as its clientAllowedIPs,
// so its .conf and the answer say the same.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import type { Store } from '../store/store';
import type { ChangeOptions } from './runner';
import { generatePresharedKey } from '../wg/keys';
import { serverNetworks } from '../wg/client-options';
import { routerNets } from '../net/router-nets';
import { detectWanInterfaces } from '../kernel/wan';
import { overlaps } from './network-rules';
import { tokenRefusal } from './provision-device';
import { checkNetworks } from './peers';
import { allocatePeerIp, allocatePeerIp6, checkPeerKey } from './peer-rules';
import { newPeerRecord } from '../resources/peer';

export interface JoinRequest { publicKey: string; networks: string[]; name: string }
export interface Joined { server: ServerRecord; peer: PeerRecord; routes: string[] }

/**
 * This router's networks as a joining site should route them: "the LAN" of lanAccess and
 * reachableFrom (net/router-nets.ts: its own interfaces' routes, not wgcp's tunnels nor site
 * links, the WAN side only where private), less host routes.
 */
export function lanPrefixes(store: Store, wanInterfaces: string[] | null): string[] {
  const skip = new Set([...store.servers.list().map((s) => s.interface), ...store.siteLinks.list().map((l) => l.interface)]);
  return routerNets(skip, new Set(wanInterfaces ?? detectWanInterfaces())).filter((p) => !/\/(32|128)$/.test(p));
}

export function joinSite(app: App, token: string, req: JoinRequest, source: string, opts?: ChangeOptions): Promise<Joined> {
  const now = app.now().toISOString();
  return app.runner.run('site.join', (store) => {
    const refusal = tokenRefusal(store, token, now);
    if (refusal) throw refusal;
    const server = store.servers.get(store.regTokens.get(token)!.serverId)!;
    checkPeerKey(store, server, req.publicKey, null);
    checkNetworks(store, req.networks, null);
    const routes = [...serverNetworks(server), ...lanPrefixes(store, app.config.wanInterfaces).filter((p) => !req.networks.some((n) => overlaps(n, p)))];
    const ip = allocatePeerIp(store, server);
    // What a site's peer does not say takes the description's initial value (resources/peer.ts).
    const peer: PeerRecord = newPeerRecord({
      id: store.peers.nextId(), serverId: server.id, name: `site-${req.name}`.slice(0, 64), ip, ip6: allocatePeerIp6(store, server, ip),
      publicKey: req.publicKey, privateKey: null, presharedKey: generatePresharedKey(), allowInternet: false, enabled: true, disabledReasons: [],
      networks: req.networks, lanAccess: 'lan' as const, reachableFrom: 'lan' as const, clientAllowedIPs: routes,
      createdAt: now, updatedAt: now,
    });
    return {
      kernel: [{ peer: { server, before: null, after: peer } }],
      commit({ store, peerEvent }) {
        if (!store.regTokens.consume(token, now)) throw tokenRefusal(store, token, now) ?? apiError('WGCP_DEVICE_TOKEN_USED');
        const rec = store.peers.insert(peer);
        peerEvent('peerCreated', server, rec, { source });
        return { server, peer: rec, routes };
      },
      audit: (j) => ({ targetType: 'peer', targetId: j.peer.id, summary: { serverID: server.id, name: j.peer.name, networks: req.networks, routes } }),
    };
  }, opts);
}
