// The steps of a server's change: its interface (with its shaping, src/kernel/server-links.ts)
// and its slice of the table, in the order they must go; runSteps undoes those done if a
// later one fails. Refusals (a link wgcp did not make) are the caller's, before any step.
import type { Logger } from '../log';
import { diff } from '../nft/diff';
import { emptyElements } from '../nft/elements';
import { serverSlice } from '../nft/policy';
import type { ServerRecord } from '../store/servers';
import { forwardIpv6 } from '../wg/ipv6-forwarding';
import { mtuOf, replaceAddress, replaceAddress6, setListenPort, setMtu } from '../wg/link';
import type { ServerModel } from './model';
import type { ServerLinks } from './server-links';
import { batchSteps, type Step } from './steps';

export interface ServerStepParts { links: ServerLinks; nft(batch: string): Promise<void>; log: Logger }

export function createSteps(m: ServerModel, { links, nft }: ServerStepParts): Step[] {
  const ifname = m.server.interface;
  const empty = emptyElements();
  const slice = serverSlice(m);
  // The filter first (fail-closed): the new interface carries no packet the table does not judge.
  return [
    ...batchSteps(nft, diff(empty, slice), diff(slice, empty), `server ${m.server.id} filter`),
    { what: `interface ${ifname}`, run: () => links.bringUpNew(m), undo: () => links.remove(ifname) },
  ];
}

export function deleteSteps(m: ServerModel, { links, nft }: ServerStepParts): Step[] {
  const ifname = m.server.interface;
  const empty = emptyElements();
  const slice = serverSlice(m);
  return [
    ...batchSteps(nft, diff(slice, empty), diff(empty, slice), `server ${m.server.id} filter`),
    { what: `interface ${ifname}`, run: () => links.remove(ifname) },
  ];
}

/** From the server `old` holds to `next`: a renamed interface made again, else only what changed of it. */
export function updateSteps(old: ServerModel, next: ServerModel, parts: ServerStepParts): Step[] {
  const { links, nft } = parts;
  const was = old.server;
  const after = next.server;
  // While the mode stays, peers and forwards put the same elements in the table: only the
  // server's own can differ, so the filter's part of such an update costs O(1), not O(peers).
  const slice = (m: ServerModel) => (was.mode === after.mode ? serverSlice({ server: m.server, peers: new Map(), forwards: new Map() }) : serverSlice(m));
  const sliceWas = slice(old);
  const sliceNext = slice(next);
  const filter = batchSteps(nft, diff(sliceWas, sliceNext), diff(sliceNext, sliceWas), `server ${after.id} filter`);
  if (was.interface !== after.interface) {
    // The old interface goes first (the new one takes over its listen port); the filter names
    // the new one before it is up (fail-closed, as a create).
    return [
      { what: `interface ${was.interface}`, run: () => links.remove(was.interface), undo: () => links.bringUpNew(old) },
      ...filter,
      { what: `interface ${after.interface}`, run: () => links.bringUpNew(next), undo: () => links.remove(after.interface) },
    ];
  }
  return [...linkSteps(was, after, parts.log), ...filter];
}

/** What changed of an interface that keeps its name: port, addresses, IPv6 forwarding, MTU. */
function linkSteps(was: ServerRecord, after: ServerRecord, log: Logger): Step[] {
  const ifname = after.interface;
  const steps: Step[] = [];
  if (was.listenPort !== after.listenPort) {
    steps.push({ what: 'listen port', run: () => setListenPort(ifname, after.listenPort), undo: () => setListenPort(ifname, was.listenPort) });
  }
  if (was.address !== after.address) {
    steps.push({ what: 'address', run: () => replaceAddress(ifname, was.address, after.address), undo: () => replaceAddress(ifname, after.address, was.address) });
  }
  if (was.address6 !== after.address6) {
    steps.push({ what: 'IPv6 address', run: () => replaceAddress6(ifname, was.address6, after.address6), undo: () => replaceAddress6(ifname, after.address6, was.address6) });
  }
  if (after.mode === 'forward' && (was.mode !== 'forward' || was.address6 !== after.address6)) {
    steps.push({ what: 'IPv6 forwarding', run: async () => forwardIpv6(after, log) });
  }
  if (mtuOf(was) !== mtuOf(after)) {
    steps.push({ what: 'mtu', run: () => setMtu(ifname, mtuOf(after)), undo: () => setMtu(ifname, mtuOf(was)) });
  }
  return steps;
}
