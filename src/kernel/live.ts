// The live backend: WireGuard interfaces through `ip`/`wg` (kernel module or wireguard-go)
// and the `inet wgcp` nftables table. Start-up replaces everything once; afterwards each
// change touches only what it changed, in steps that are undone if a later one fails.
import type { Logger } from '../log';
import type { ServerRecord } from '../store/servers';
import { applyBatch } from '../nft/apply';
import { diff } from '../nft/diff';
import { emptyElements } from '../nft/elements';
import { forwardSlice, fullPolicy, peerSlice, serverSlice } from '../nft/policy';
import { renderTable } from '../nft/render';
import { NftSession } from '../nft/session';
import { parseDump } from '../wg/dump';
import {
  configureLink, deleteLink, dumpInterface, listLinks, mtuOf, replaceAddress, setListenPort, setMtu, syncPeers, type LinkDriver,
} from '../wg/link';
import { peerOps, type PeerOp } from '../wg/uapi-conf';
import { removeSecretDir, run } from './command';
import { ServerModel } from './model';
import type { ForwardChange, KernelPlane, PeerChange, PeerCounters, ServerChange, ServerState } from './plane';
import { runSteps, type Step } from './steps';

/** Interfaces named like the daemon's defaults that no server holds are left-overs to remove. */
const OWN_NAME = /^wgcp\d+$/;

function runPeerOps(ops: PeerOp[]): void {
  for (const op of ops) run('wg', op.args, { secret: op.secret });
}

/** The peer's `wg set` calls; if a later one fails after an earlier one worked (a new key), the peer is put back first. */
function runPeerOpsOrRestore(ops: PeerOp[], restore: PeerOp[]): void {
  let done = 0;
  try {
    for (const op of ops) {
      run('wg', op.args, { secret: op.secret });
      done++;
    }
  } catch (err) {
    if (done > 0) { try { runPeerOps(restore); } catch { /* the caller logs the failure; restart reconciles */ } }
    throw err;
  }
}

export class KernelLive implements KernelPlane {
  readonly state = 'on' as const;
  private readonly servers = new Map<number, ServerModel>();
  /** Incremental batches go through one long-lived nft; start-up's whole table through `nft -f`. */
  private readonly nft = new NftSession(30_000, (reason) => this.log.warn('nft -i cannot be used: incremental batches run one nft -f each (slower)', { reason }));

  constructor(private readonly log: Logger, readonly driver: LinkDriver) {}

  reconcile(states: ServerState[]): void {
    const wanted = new Set(states.map((s) => s.server.interface));
    for (const link of listLinks()) {
      if (OWN_NAME.test(link.name) && !wanted.has(link.name) && (link.kind === 'wireguard' || link.kind === 'tun')) {
        this.log.info('removing an interface no server holds', { interface: link.name });
        deleteLink(link.name);
      }
    }
    const models = states.map(ServerModel.of);
    for (const m of models) this.bringUp(m, true);
    applyBatch(renderTable(fullPolicy(models)));
    this.servers.clear();
    for (const m of models) this.servers.set(m.server.id, m);
    this.log.info('kernel reconciled', { servers: models.length, peers: models.reduce((n, m) => n + m.peers.size, 0), wireguard: this.driver.kind });
  }

  applyPeer({ server, before, after }: PeerChange): void {
    const model = this.model(server.id);
    const id = (after ?? before)!.id;
    const held = model.peers.get(id) ?? null;
    const lookupBefore = (x: number) => model.peers.get(x);
    const lookupAfter = (x: number) => (x === id ? after ?? undefined : model.peers.get(x));
    const sliceBefore = peerSlice(model.server, held, lookupBefore, model.referrersOf(id));
    const sliceAfter = peerSlice(model.server, after, lookupAfter, model.referrersOf(id));
    const ifname = model.server.interface;
    const steps: Step[] = [];
    this.pushBatch(steps, diff(sliceBefore, sliceAfter), diff(sliceAfter, sliceBefore), `peer ${id} filter`);
    const ops = peerOps(ifname, held, after);
    const restore = peerOps(ifname, after, held);
    if (ops.length) steps.push({ what: `peer ${id} on ${ifname}`, run: () => runPeerOpsOrRestore(ops, restore), undo: () => runPeerOps(restore) });
    runSteps(steps, this.log);
    if (after) model.putPeer(after); else model.deletePeer(id);
  }

  applyServer({ before, after, peers, forwards }: ServerChange): void {
    if (!before && after) return this.createServer(new ServerModel(after, peers, forwards));
    if (before && !after) return this.deleteServer(this.model(before.id));
    if (before && after) return this.updateServer(this.model(before.id), after);
  }

  applyForward({ server, before, after }: ForwardChange): void {
    const model = this.model(server.id);
    const id = (after ?? before)!.id;
    const held = model.forwards.get(id) ?? null;
    const steps: Step[] = [];
    const was = forwardSlice(model.server, held);
    const will = forwardSlice(model.server, after);
    this.pushBatch(steps, diff(was, will), diff(will, was), `forward ${id}`);
    runSteps(steps, this.log);
    if (after) model.forwards.set(id, after); else model.forwards.delete(id);
  }

  peerCounters(server: ServerRecord): Map<string, PeerCounters> {
    const out = new Map<string, PeerCounters>();
    for (const p of parseDump(dumpInterface(server.interface)).peers) {
      out.set(p.publicKey, { latestHandshake: p.latestHandshake, rxBytes: p.rxBytes, txBytes: p.txBytes });
    }
    return out;
  }

  /** After a wireguard-go restart: the new process is empty, give it its server back. */
  restoreInterface(ifname: string): void {
    const model = [...this.servers.values()].find((m) => m.server.interface === ifname);
    if (!model) return;
    configureLink(model.server);
    syncPeers(model.server, model.peers.values());
    this.log.info('interface restored after wireguard-go restart', { interface: ifname, peers: model.peers.size });
  }

  async close(): Promise<void> {
    await this.driver.close();
    await this.nft.close();
    removeSecretDir();
  }

  private model(serverId: number): ServerModel {
    const m = this.servers.get(serverId);
    if (!m) throw new Error(`kernel: server ${serverId} is not known to the kernel plane`);
    return m;
  }

  private pushBatch(steps: Step[], batch: string, reverse: string, what: string): void {
    if (batch) steps.push({ what, run: () => this.nft.apply(batch), undo: () => this.nft.apply(reverse) });
  }

  /** Makes the device if missing, then address, MTU, up, key, port and peers. */
  private bringUp(m: ServerModel, reuse: boolean): void {
    const { server } = m;
    const existing = reuse ? listLinks().find((l) => l.name === server.interface) : undefined;
    const usable = existing && (this.driver.kind === 'kernel' ? existing.kind === 'wireguard' : false);
    if (!usable) {
      if (existing) deleteLink(server.interface);
      this.driver.create(server.interface);
    }
    configureLink(server);
    syncPeers(server, m.peers.values());
  }

  /** A new interface that is removed again if any part of bringing it up fails. */
  private bringUpNew(m: ServerModel): void {
    try {
      this.bringUp(m, false);
    } catch (err) {
      try { this.driver.remove(m.server.interface); } catch { /* it may never have existed */ }
      throw err;
    }
  }

  private createServer(m: ServerModel): void {
    const ifname = m.server.interface;
    const empty = emptyElements();
    const slice = serverSlice(m);
    const steps: Step[] = [{ what: `interface ${ifname}`, run: () => this.bringUpNew(m), undo: () => this.driver.remove(ifname) }];
    this.pushBatch(steps, diff(empty, slice), diff(slice, empty), `server ${m.server.id} filter`);
    runSteps(steps, this.log);
    this.servers.set(m.server.id, m);
  }

  private deleteServer(m: ServerModel): void {
    const ifname = m.server.interface;
    const empty = emptyElements();
    const slice = serverSlice(m);
    const steps: Step[] = [];
    this.pushBatch(steps, diff(slice, empty), diff(empty, slice), `server ${m.server.id} filter`);
    steps.push({ what: `interface ${ifname}`, run: () => this.driver.remove(ifname) });
    runSteps(steps, this.log);
    this.servers.delete(m.server.id);
  }

  private updateServer(old: ServerModel, after: ServerRecord): void {
    const next = old.withServer(after);
    const was = old.server;
    const steps: Step[] = [];
    const renamed = was.interface !== after.interface;
    if (renamed) {
      // The old interface goes first: the new one takes over its listen port.
      steps.push({ what: `interface ${was.interface}`, run: () => this.driver.remove(was.interface), undo: () => this.bringUpNew(old) });
      steps.push({ what: `interface ${after.interface}`, run: () => this.bringUpNew(next), undo: () => this.driver.remove(after.interface) });
    } else {
      const ifname = after.interface;
      if (was.listenPort !== after.listenPort) {
        steps.push({ what: 'listen port', run: () => setListenPort(ifname, after.listenPort), undo: () => setListenPort(ifname, was.listenPort) });
      }
      if (was.address !== after.address) {
        steps.push({ what: 'address', run: () => replaceAddress(ifname, was.address, after.address), undo: () => replaceAddress(ifname, after.address, was.address) });
      }
      if (mtuOf(was) !== mtuOf(after)) {
        steps.push({ what: 'mtu', run: () => setMtu(ifname, mtuOf(after)), undo: () => setMtu(ifname, mtuOf(was)) });
      }
    }
    const sliceWas = serverSlice(old);
    const sliceNext = serverSlice(next);
    this.pushBatch(steps, diff(sliceWas, sliceNext), diff(sliceNext, sliceWas), `server ${after.id} filter`);
    runSteps(steps, this.log);
    this.servers.set(after.id, next);
  }
}

