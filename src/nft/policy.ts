// Which elements a server, a peer or a forward contributes to the table (DESIGN.md 6).
// Slices are computed from the changed thing and its neighbours only, so a peer change
// costs the same whatever the number of peers.
import type { PortForward } from '../store/forwards';
import type { KernelPeer } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import {
  emptyElements, forwardKey, forwardTarget, forwardTarget6, ifnameElement, ip6Element, ipElement, mergeInto, pair6Element, pairElement,
  serverAddr6Element, serverAddrElement,
  type PolicyElements,
} from './elements';

export interface ServerView {
  server: ServerRecord;
  peers: ReadonlyMap<number, KernelPeer>;
  forwards: ReadonlyMap<number, PortForward>;
}

const inPolicy = (server: ServerRecord): boolean => server.mode === 'forward';

/**
 * The elements that involve one peer: its own allowAccess pairs, the pairs of peers that
 * name it (`referrers`), and its internet flag. Disabled peers hold nothing.
 */
export function peerSlice(server: ServerRecord, peer: KernelPeer | null, lookup: (id: number) => KernelPeer | undefined, referrers: Iterable<number>): PolicyElements {
  const out = emptyElements();
  if (!inPolicy(server) || !peer || !peer.enabled) return out;
  for (const id of peer.allowAccess) {
    const target = id === peer.id ? undefined : lookup(id);
    if (target && target.enabled) out.pairs.add(pairElement(peer.ip, target.ip));
  }
  for (const id of referrers) {
    const source = id === peer.id ? undefined : lookup(id);
    if (source && source.enabled && source.allowAccess.includes(peer.id)) out.pairs.add(pairElement(source.ip, peer.ip));
  }
  if (peer.allowInternet) out.internet.add(ipElement(peer.ip));
  if (peer.ip6 !== null) {
    for (const id of peer.allowAccess) {
      const target = id === peer.id ? undefined : lookup(id);
      if (target && target.enabled && target.ip6 !== null) out.pairs6.add(pair6Element(peer.ip6, target.ip6));
    }
    for (const id of referrers) {
      const source = id === peer.id ? undefined : lookup(id);
      if (source && source.enabled && source.ip6 !== null && source.allowAccess.includes(peer.id)) out.pairs6.add(pair6Element(source.ip6, peer.ip6));
    }
    if (peer.allowInternet) out.internet6.add(ip6Element(peer.ip6));
  }
  return out;
}

export function forwardSlice(server: ServerRecord, forward: PortForward | null): PolicyElements {
  const out = emptyElements();
  if (!inPolicy(server) || !forward) return out;
  out.forwards.set(forwardKey(forward.protocol, forward.listenPort), forwardTarget(forward.targetIp, forward.targetPort));
  if (forward.targetIp6) out.forwards6.set(forwardKey(forward.protocol, forward.listenPort), forwardTarget6(forward.targetIp6, forward.targetPort));
  return out;
}

/** Everything a server puts in the table; in standalone mode only its interface, kept apart from the tunnels. */
export function serverSlice(view: ServerView): PolicyElements {
  const out = emptyElements();
  const { server, peers } = view;
  if (!inPolicy(server)) {
    out.standalone.add(ifnameElement(server.interface));
    return out;
  }
  out.tunnels.add(ifnameElement(server.interface));
  out.serverAddrs.add(serverAddrElement(server.interface, server.address));
  if (server.address6 !== null) out.serverAddrs6.add(serverAddr6Element(server.interface, server.address6));
  const lookup = (id: number) => peers.get(id);
  for (const peer of peers.values()) mergeInto(out, peerSlice(server, peer, lookup, []));
  for (const f of view.forwards.values()) mergeInto(out, forwardSlice(server, f));
  return out;
}

/** The whole policy: what start-up writes and what a full rebuild would write. */
export function fullPolicy(views: Iterable<ServerView>): PolicyElements {
  const out = emptyElements();
  for (const v of views) mergeInto(out, serverSlice(v));
  return out;
}
