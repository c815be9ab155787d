// Which elements a server, a peer or a forward contributes to the table (DESIGN.md 6).
// Slices are computed from the changed thing and its neighbours only, so a peer change
// costs the same whatever the number of peers.
import type { PortForward } from '../store/forwards';
import type { KernelPeer } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import {
  emptyElements, forwardKey, forwardTarget, forwardTarget6, ifnameElement, ip6Element, ipElement, isPrefix6, mergeInto, prefixElement,
  serverAddr6Element, serverAddrElement,
  type PolicyElements,
} from './elements';

export interface ServerView {
  server: ServerRecord;
  peers: ReadonlyMap<number, KernelPeer>;
  forwards: ReadonlyMap<number, PortForward>;
}

const inPolicy = (server: ServerRecord): boolean => server.mode === 'forward';

/** A peer's addresses of one family, as interval-set elements: its tunnel address and its networks. */
export function peerPrefixes(peer: KernelPeer, v6: boolean): string[] {
  const own = v6 ? peer.ip6 : peer.ip;
  const out = own === null ? [] : [v6 ? ip6Element(own) : ipElement(own)];
  for (const n of peer.networks ?? []) if (isPrefix6(n) === v6) out.push(prefixElement(n));
  return out;
}

const FAMILY = {
  v4: { pairs: ['pairs', 'pairsNets'], internet: ['internet', 'internetNets'], lanAll: ['lanAll', 'lanAllNets'], lanAccess: 'lanAccess', reachLan: ['reachLan', 'reachLanNets'], reachFrom: 'reachFrom' },
  v6: { pairs: ['pairs6', 'pairsNets6'], internet: ['internet6', 'internetNets6'], lanAll: ['lanAll6', 'lanAllNets6'], lanAccess: 'lanAccess6', reachLan: ['reachLan6', 'reachLanNets6'], reachFrom: 'reachFrom6' },
} as const;

/** An element with a network prefix goes to the interval twin (`*Nets`), one of addresses alone to the exact set. */
type Split = readonly [keyof PolicyElements, keyof PolicyElements];
const put = (out: PolicyElements, [exact, nets]: Split, e: string): void => { (out[e.includes('/') ? nets : exact] as Set<string>).add(e); };

const cross = (into: Set<string> | ((e: string) => void), from: readonly string[], to: readonly string[]): void => {
  for (const a of from) for (const b of to) (typeof into === 'function' ? into : (e: string) => into.add(e))(`${a} . ${b}`);
};

/**
 * The elements that involve one peer: its own allowAccess pairs, the pairs of peers that
 * name it (`referrers`), its internet flag, its reach into the router's networks
 * (lanAccess) and theirs into it (reachableFrom). A peer is its address and its networks
 * in every one of them. Disabled peers hold nothing.
 */
export function peerSlice(server: ServerRecord, peer: KernelPeer | null, lookup: (id: number) => KernelPeer | undefined, referrers: Iterable<number>): PolicyElements {
  const out = emptyElements();
  if (!inPolicy(server) || !peer || !peer.enabled) return out;
  const targets: KernelPeer[] = [];
  for (const id of peer.allowAccess) {
    const target = id === peer.id ? undefined : lookup(id);
    if (target && target.enabled) targets.push(target);
  }
  const sources: KernelPeer[] = [];
  for (const id of referrers) {
    const source = id === peer.id ? undefined : lookup(id);
    if (source && source.enabled && source.allowAccess.includes(peer.id)) sources.push(source);
  }
  for (const v6 of [false, true]) {
    const f = FAMILY[v6 ? 'v6' : 'v4'];
    const mine = peerPrefixes(peer, v6);
    if (mine.length === 0) continue;
    const pair = (e: string) => put(out, f.pairs, e);
    for (const t of targets) cross(pair, mine, peerPrefixes(t, v6));
    for (const s of sources) cross(pair, peerPrefixes(s, v6), mine);
    if (peer.allowInternet) for (const e of mine) put(out, f.internet, e);
    const lan = peer.lanAccess ?? [];
    if (lan === 'lan') for (const e of mine) put(out, f.lanAll, e);
    else cross(out[f.lanAccess], mine, lan.filter((n) => isPrefix6(n) === v6).map(prefixElement));
    const from = peer.reachableFrom ?? [];
    if (from === 'lan') for (const e of mine) put(out, f.reachLan, e);
    else cross(out[f.reachFrom], from.filter((n) => isPrefix6(n) === v6).map(prefixElement), mine);
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
