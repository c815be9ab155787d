// The live backend: WireGuard interfaces through `ip`/`wg` (kernel module or wireguard-go)
// and the `inet wgcp` nftables table. Start-up replaces everything once; afterwards each
// change touches only what it changed, in steps that are undone if a later one fails.
import type { Logger } from '../log';
import type { KernelPeer } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { applyBatch } from '../nft/apply';
import { diff } from '../nft/diff';
import { emptyElements, mergeInto } from '../nft/elements';
import { WanFollower } from './wan-follower';
import { forwardSlice, fullPolicy, serverSlice } from '../nft/policy';
import { renderTable } from '../nft/render';
import { NftSession } from '../nft/session';
import { dumpInterface, type LinkDriver } from '../wg/link';
import { deleteOwnLink, foreignLinkError, isForeignLink, listLinks, markOwnLink } from '../wg/link-owner';
import { removeSecretDir } from '../exec/command';
import { ServerModel } from './model';
import { FailedServers, type ServerFailure } from './failed-servers';
import type { ForwardChange, KernelPlane, PeerChange, PeerCounters, ReconcileOptions, ServerChange, ServerKernelState, ServerState } from './plane';
import { batchSteps, runSteps } from './steps';
import { createSteps, deleteSteps, updateSteps, type ServerStepParts } from './server-steps';
import type { ReconcileTarget } from './reconcile-target';
import { applyPeerSync } from './peer-sync';
import { PeerResync } from './peer-resync';
import { ReconcilerHooks, type LivePlaneParts, type ReconcileObserver } from './live-reconcile-target';
import { forwardChangesToward, heldRows, peerChangesToward, ROUTER_SYNC, serverDiffers, type SyncOptions, type SyncRepairs, type SyncUndo } from './server-sync';
import { ServerLinks } from './server-links';
import { RepairBackoff, type FailingRepair } from './repair-backoff';
import { Shaper } from '../shaping/shaper';
import { SiteLinks, type SiteLinkChange } from './site-links';
import type { SiteLinkRecord } from '../store/site-links';

export class KernelLive implements KernelPlane {
  readonly state = 'on' as const;
  private readonly servers = new Map<number, ServerModel>();
  /** Incremental batches go through one long-lived nft; start-up's whole table through `nft -f`. */
  private readonly nft = new NftSession(undefined, (reason) => this.log.warn('nft -i cannot be used: incremental batches run one nft -f each (slower)', { reason }));

  /** Servers that could not be brought up: left out of the table, retried with back-off. */
  private readonly failed = new FailedServers((id) => void this.syncer?.(id).catch((err: unknown) => this.log.warn('a failed server\'s retry could not run: tried again later', { serverID: id, error: err instanceof Error ? err.message : String(err) })));

  /** Servers known from start-up and not yet brought up by their first sync; `tabled`: their filter is in the table already. */
  private readonly pending = new Map<number, { tabled: boolean }>();

  /** A full sync of a server through the change runner (src/ops/kernel-sync.ts): how a failed server is retried. */
  private syncer: ((serverId: number, req?: { remade?: boolean }) => Promise<SyncUndo | undefined>) | null = null;

  /** Runs kernel work in the change runner's order; until the runner is wired, at once. */
  private serialize: (what: string, work: () => Promise<void>) => Promise<void> = (_what, work) => work();

  private readonly wan: WanFollower;
  /** Per-peer bandwidth limits: classes and map elements beside each interface (src/shaping/). */
  readonly shaper: Shaper;
  /** Each server's interface with its shaping: made, restored, removed. */
  private readonly links: ServerLinks;
  private readonly resync: PeerResync;
  /** This router's links to other wgcp routers (wgcp join), beside the servers. */
  private readonly siteLinks: SiteLinks;
  private readonly reconciler = new ReconcilerHooks();
  /** The reconciler's repairs that failed, waiting their back-off (shown in /healthz and /metrics). */
  readonly repairBackoff = new RepairBackoff();
  private closed = false;

  /** `wanInterfaces`: the operator's WAN names, or null to follow the default routes. */
  constructor(private readonly log: Logger, readonly driver: LinkDriver, wanInterfaces: string[] | null = null) {
    this.wan = new WanFollower(log, wanInterfaces, (batch) => this.nft.apply(batch), () => new Set([...[...this.servers.values()].map((m) => m.server.interface), ...(this.siteLinks?.names() ?? [])]));
    this.shaper = new Shaper(log, (batch) => this.nft.apply(batch), (what, work) => this.serialize(what, work));
    this.links = new ServerLinks(log, driver, this.shaper);
    this.siteLinks = new SiteLinks(log, driver, (batch) => this.nft.apply(batch));
    this.resync = new PeerResync(log, (serverId) => (this.down(serverId) || this.closed ? undefined : this.syncer?.(serverId)));
  }

  setSerializer(serialize: (what: string, work: () => Promise<void>) => Promise<void>): void { this.serialize = serialize; }

  setSyncer(sync: (serverId: number, req?: { remade?: boolean }) => Promise<SyncUndo | undefined>): void { this.syncer = sync; }

  /** Not held up by the kernel: failed (retried), or known from start-up and not yet synced. Holds nothing. */
  private down(serverId: number): boolean { return this.failed.has(serverId) || this.pending.has(serverId); }

  /** The `nft -i` session's process id (tests stop it to see the bound hold). */
  nftPid(): number | null { return this.nft.pid(); }

  /**
   * Start-up's first step, fail-closed: wgcp's links that no server holds go, and the whole
   * table, with its drops, is loaded before any tunnel is up or holds a peer. The servers are
   * known but not yet held up: each comes up through its full sync (src/ops/kernel-sync.ts,
   * syncAtStartUp), so start-up, a retry and a repair take the same path.
   */
  async prepare(states: ServerState[], opts: ReconcileOptions = {}): Promise<void> {
    const wanted = this.links.wanted(states);
    for (const name of this.siteLinks.names()) wanted.add(name);
    for (const link of listLinks()) {
      if (opts.adoptUnmarked && !link.ours && wanted.has(link.name) && (link.kind === 'wireguard' || link.kind === 'tun')) {
        this.log.info('adopting an interface made by an earlier wgcp', { interface: link.name });
        await markOwnLink(link.name);
      } else if (link.ours && !wanted.has(link.name)) {
        this.log.info('removing an interface of wgcp that no server holds', { interface: link.name });
        await deleteOwnLink(link.name);
      }
    }
    const models = states.map(ServerModel.of);
    this.servers.clear();
    this.pending.clear();
    // A server whose name a link of the router's holds is left out of the table (its bring-up fails: that link is not wgcp's).
    for (const m of models) {
      this.servers.set(m.server.id, m);
      this.pending.set(m.server.id, { tabled: !isForeignLink(m.server.interface) });
    }
    await applyBatch(this.wholeTable(models.filter((m) => this.pending.get(m.server.id)!.tabled)));
    this.log.debug('kernel table loaded: each server comes up through its sync', { servers: models.length, peers: models.reduce((n, m) => n + m.peers.size, 0), wireguard: this.driver.kind });
  }

  isForeignLink(name: string): boolean { return isForeignLink(name); }

  applySiteLink(change: SiteLinkChange): Promise<void> { return this.siteLinks.apply(change); }

  bringUpSiteLinks(links: SiteLinkRecord[]): Promise<void> { return this.siteLinks.bringUpAll(links); }

  takeDownSiteLinks(): Promise<void> { return this.siteLinks.takeDownAll(); }

  /** The whole `inet wgcp` table of these servers, with the WAN set as followed now. */
  private wholeTable(models: ServerModel[]): string {
    const policy = mergeInto(fullPolicy(models), this.siteLinks.elements());
    const side = this.wan.current();
    for (const k of ['wan', 'routerNets', 'routerNets6'] as const) for (const e of side[k]) policy[k].add(e);
    return renderTable(policy);
  }

  serverState(serverId: number): ServerKernelState {
    const failure = this.failed.get(serverId);
    const lastRepair = this.reconciler.lastRepair(serverId);
    const state: ServerKernelState = failure ? { state: 'failed', ...failure } : { state: 'up' };
    return lastRepair ? { ...state, lastRepair } : state;
  }

  failures(): ServerFailure[] { return this.failed.list(); }

  failingRepairs(): FailingRepair[] { return this.repairBackoff.list(); }

  /** One peer's change: the partial sync of that peer (src/kernel/peer-sync.ts). */
  applyPeer(change: PeerChange<KernelPeer>): Promise<void> { return this.applyPeers([change]); }

  /** The partial sync of the peers the changes name (src/kernel/peer-sync.ts); the models follow once it holds. */
  async applyPeers(changes: PeerChange<KernelPeer>[]): Promise<void> {
    await applyPeerSync(changes, {
      model: (id) => this.model(id), failed: (id) => this.down(id), nft: (b) => this.nft.apply(b),
      shaper: this.shaper, log: this.log, resyncLater: (id) => this.resync.later(id),
    });
    for (const c of changes) this.followPeer(this.model(c.server.id), c);
  }

  /** The model takes a peer change (and its forwards) that the kernel holds now, or will when the server comes up. */
  private followPeer(model: ServerModel, { before, after, forwards }: PeerChange<KernelPeer>): void {
    const id = (after ?? before)!.id;
    for (const f of forwards?.before ?? []) model.forwards.delete(f.id);
    for (const f of forwards?.after ?? []) model.forwards.set(f.id, f);
    if (after) model.putPeer(after); else model.deletePeer(id);
  }

  async applyServer({ before, after, peers, forwards }: ServerChange<KernelPeer>): Promise<void> {
    if (!before && after) return this.createServer(new ServerModel(after, peers, forwards));
    if (before && !after) return this.down(before.id) ? this.dropFailedServer(this.model(before.id)) : this.deleteServer(this.model(before.id));
    if (before && after) return this.down(before.id) ? this.updateFailedServer(this.model(before.id), after) : this.updateServer(this.model(before.id), after);
  }

  async applyForward({ server, before, after }: ForwardChange): Promise<void> {
    const model = this.model(server.id);
    const id = (after ?? before)!.id;
    const held = model.forwards.get(id) ?? null;
    if (this.down(server.id)) {
      if (after) model.forwards.set(id, after); else model.forwards.delete(id);
      return;
    }
    const was = forwardSlice(model.server, held);
    const will = forwardSlice(model.server, after);
    await runSteps(batchSteps((batch) => this.nft.apply(batch), diff(was, will), diff(will, was), `forward ${id}`), this.log);
    if (after) model.forwards.set(id, after); else model.forwards.delete(id);
  }

  async peerCounters(server: ServerRecord): Promise<Map<string, PeerCounters>> {
    if (this.down(server.id)) return new Map();
    const dump = await dumpInterface(server.interface);
    return this.reconciler.counters(server.id, dump);
  }

  /** The reconciler's view (src/kernel/live-reconcile-target.ts) and its hooks. */
  reconcileTarget(observe: ReconcileObserver): ReconcileTarget {
    return this.reconciler.target(this.liveParts(), observe);
  }

  /**
   * The one sync of a server to what the store says (`desired`; null: the store has it no
   * more). Partial (`peers` named: a change, a replicated row) costs what the peers named
   * cost: the rows that differ from what the kernel holds go in one partial sync. Full
   * ('all': a restore, a standby router catching up) does that for every row, then reads the kernel
   * itself (links, peers, IPv6 forwarding, the table, bandwidth limits) and puts right what
   * differs, each kind in one batch. Resolves with the rows held before, for its undo.
   */
  async syncServer(serverId: number, desired: ServerState | null, opts: SyncOptions): Promise<SyncUndo> {
    if (serverId === ROUTER_SYNC) return { server: null, peers: [], forwards: [], ids: [], repairs: await this.readBack(null, opts) };
    const known = this.servers.get(serverId);
    if (!desired) {
      if (known) await this.applyServer({ before: known.server, after: null, peers: [], forwards: [] });
      return { server: known?.server ?? null, peers: known ? [...known.peers.values()] : [], forwards: known ? [...known.forwards.values()] : [], ids: known ? [...known.peers.keys()] : [] };
    }
    if (!known) {
      await this.applyServer({ before: null, after: desired.server, peers: desired.peers, forwards: desired.forwards });
      return { server: null, peers: [], forwards: [], ids: [] };
    }
    // Held by nothing yet (start-up) or failed (its retry): made whole from the rows.
    if (this.down(serverId)) return this.bringUpHeld(known, desired);
    if (opts.remade) return this.bringUpHeld(known, desired, true);
    const undo: SyncUndo = { server: known.server, peers: [], forwards: [...known.forwards.values()], ids: [] };
    // Each part undoes itself if it fails; the parts before it are undone here, in reverse, so
    // a sync that fails leaves the kernel as it was (the runner then commits nothing).
    const back: { what: string; run(): Promise<void> }[] = [];
    try {
      if (serverDiffers(known.server, desired.server)) {
        const change = { before: known.server, after: desired.server, peers: [], forwards: [] };
        await this.applyServer(change);
        back.push({ what: 'server', run: () => this.applyServer({ ...change, before: change.after, after: change.before }) });
      }
      const m = this.model(serverId);
      const changes = peerChangesToward(m, desired, opts.peers);
      Object.assign(undo, heldRows(m, changes));
      if (changes.length) {
        await this.applyPeers(changes);
        back.push({ what: 'peers', run: () => this.applyPeers(changes.map((c) => ({ ...c, before: c.after, after: c.before })).reverse()) });
      }
      for (const f of forwardChangesToward(m, desired)) {
        await this.applyForward(f);
        back.push({ what: 'forward', run: () => this.applyForward({ ...f, before: f.after, after: f.before }) });
      }
    } catch (err) {
      for (const b of back.reverse()) {
        await b.run().catch((e: unknown) => this.log.error('undoing a sync failed: the kernel may differ from the database until restart', { serverID: serverId, step: b.what, error: e instanceof Error ? e.message : String(e) }));
      }
      throw err;
    }
    if (opts.peers === 'all' && !this.down(serverId)) undo.repairs = await this.readBack(serverId, opts);
    return undo;
  }

  /** A full sync's read of the kernel (src/kernel/live-reconcile-target.ts); `serverId` null: the table only. */
  private readBack(serverId: number | null, opts: SyncOptions): Promise<SyncRepairs> {
    return this.reconciler.readBack(this.liveParts(), serverId, opts, this.log);
  }

  /**
   * A full sync of a server the kernel does not hold up (known from start-up, or failed):
   * its filter first (fail-closed), then its interface with every peer, made from the rows.
   * Never throws for the server itself: one that cannot come up is marked failed, holds
   * nothing, and is retried with back-off through this same sync. `remade`: the server was up
   * and its device was made again empty (a wireguard-go restart): its filter is in the table
   * and the device is used as it is.
   */
  private async bringUpHeld(known: ServerModel, desired: ServerState, remade = false): Promise<SyncUndo> {
    const id = known.server.id;
    const undo: SyncUndo = { server: known.server, peers: [...known.peers.values()], forwards: [...known.forwards.values()], ids: [...new Set([...known.peers.keys(), ...desired.peers.map((p) => p.id)])] };
    if (known.server.interface !== desired.server.interface) {
      if (isForeignLink(desired.server.interface)) throw foreignLinkError(desired.server.interface);
      if (!isForeignLink(known.server.interface)) await this.links.remove(known.server.interface);
    }
    const m = ServerModel.of(desired);
    this.servers.set(id, m);
    const tabled = remade || (this.pending.get(id)?.tabled ?? false);
    const wasFailed = this.failed.has(id);
    const slice = serverSlice(m);
    const empty = emptyElements();
    try {
      await runSteps([
        ...(tabled ? [] : [{ what: `server ${id} filter`, run: () => this.nft.apply(diff(empty, slice)), undo: () => this.nft.apply(diff(slice, empty)) }]),
        // A link left from the last run is kept at start-up (its sessions go on); a retry makes it new.
        { what: `interface ${m.server.interface}`, run: () => this.links.bringUp(m, tabled, remade) },
      ], this.log);
      this.pending.delete(id);
      if (remade) {
        this.log.info('interface restored after wireguard-go restart', { interface: m.server.interface, peers: m.peers.size });
        this.reconciler.restored(id, m.peers.size);
      }
      this.failed.clear(id);
      if (wasFailed) this.log.info('server is up after an earlier failure', { serverID: id, interface: m.server.interface });
    } catch (err) {
      this.pending.delete(id);
      await this.links.removeLeftover(m.server.interface);
      // A server that failed holds nothing: its filter leaves the table.
      if (tabled) await this.nft.apply(diff(slice, empty)).catch(() => {});
      this.markFailed(m, err);
    }
    return undo;
  }

  private liveParts(): LivePlaneParts {
    return {
      driver: this.driver.kind,
      upServers: () => [...this.servers.values()].filter((m) => !this.down(m.server.id)),
      known: (serverId) => this.servers.get(serverId),
      model: (serverId) => this.model(serverId),
      wanHeld: () => this.wan.held(),
      siteLinkElements: () => this.siteLinks.elements(),
      siteLinks: () => this.siteLinks.list(),
      repairSiteLink: (link) => this.siteLinks.repair(link),
      applyElements: (batch) => this.nft.apply(batch),
      reviveLink: async (serverId) => {
        const m = this.model(serverId);
        try {
          await this.links.bringUpNew(m);
        } catch (err) {
          // Kept failing: marked failed and retried with back-off, as at start-up.
          this.markFailed(m, err);
          throw err;
        }
      },
      shaper: this.shaper,
    };
  }

  /** Process ids of wgcp's own nft (its session), so the monitor can tell its changes from others'. */
  ownNftPids(): (number | null)[] { return [this.nft.pid()]; }

  /**
   * After a wireguard-go restart: the new process is empty. A server's is given back through
   * its full sync (a change of the runner, brought up on that device from the rows, as at
   * start-up); a site link's is configured again in the runner's turn.
   */
  async restoreInterface(ifname: string): Promise<void> {
    const model = [...this.servers.values()].find((m) => m.server.interface === ifname);
    if (model) {
      if (!this.closed) await this.syncer?.(model.server.id, { remade: true });
      return;
    }
    await this.serialize(`restore ${ifname}`, async () => {
      if (await this.siteLinks.restore(ifname)) this.log.info('site link restored after wireguard-go restart', { interface: ifname });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failed.close();
    this.wan.close();
    await this.driver.close();
    await this.shaper.close();
    await this.nft.close();
    removeSecretDir();
  }

  private model(serverId: number): ServerModel {
    const m = this.servers.get(serverId);
    if (!m) throw new Error(`kernel: server ${serverId} is not known to the kernel plane`);
    return m;
  }

  private markFailed(m: ServerModel, err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    this.failed.mark(m.server.id, m.server.interface, reason);
    const f = this.failed.get(m.server.id)!;
    this.log.error('server could not be brought up; the others run, and it is tried again', { serverID: m.server.id, interface: m.server.interface, reason, attempt: f.attempts, nextRetryAt: f.nextRetryAt });
  }

  /** An update of a failed server is stored, then tried at once: it may be the fix. */
  private async updateFailedServer(old: ServerModel, after: ServerRecord): Promise<void> {
    await this.bringUpHeld(old, { server: after, peers: [...old.peers.values()], forwards: [...old.forwards.values()] });
  }

  private async dropFailedServer(m: ServerModel): Promise<void> {
    this.failed.clear(m.server.id);
    this.pending.delete(m.server.id);
    if (!isForeignLink(m.server.interface)) await this.links.remove(m.server.interface);
    this.servers.delete(m.server.id);
  }

  private async createServer(m: ServerModel): Promise<void> {
    if (isForeignLink(m.server.interface)) throw foreignLinkError(m.server.interface);
    await runSteps(createSteps(m, this.stepParts()), this.log);
    this.servers.set(m.server.id, m);
  }

  private async deleteServer(m: ServerModel): Promise<void> {
    await runSteps(deleteSteps(m, this.stepParts()), this.log);
    this.servers.delete(m.server.id);
  }

  private async updateServer(old: ServerModel, after: ServerRecord): Promise<void> {
    if (old.server.interface !== after.interface && isForeignLink(after.interface)) throw foreignLinkError(after.interface);
    const next = old.withServer(after);
    await runSteps(updateSteps(old, next, this.stepParts()), this.log);
    this.servers.set(after.id, next);
  }

  private stepParts(): ServerStepParts {
    return { links: this.links, nft: (batch) => this.nft.apply(batch), log: this.log };
  }
}

