// The one way every change goes: the change runner. A change is planned, applied to the
// kernel and committed with its events, one change at a time in the order they came:
//
//   1. plan    reads and checks in one read transaction and decides everything (keys,
//              addresses, the rows to write, the kernel delta); a refusal ends it here.
//   2. kernel  the delta is applied without holding the event loop, each tool bounded;
//              a failure undoes what this change applied and ends it: nothing is stored.
//   3. commit  the rows and the change's events (their outbox rows) in one transaction;
//              if it fails, the kernel delta is undone and the change fails whole.
//   4. announce  the committed events go to the live consumers (and access the change
//              ended, to what holds it open).
//
// Because changes never overlap, what the plan read is still true when it commits. Reads
// (the API's GETs, heartbeats' answers) never wait for a change. The order lives here and
// only here: an operation supplies a plan, never its own transaction or kernel call.
import { isStorageFailure, type WriteFailure } from './storage-health';
import { isHttpError } from 'http-errors';
import { apiError } from '../error-registry';
import type { ChangeNotice, EventBus, EventName, PeerEventName, WgcpEvent } from '../events/bus';
import type { ForwardChange, KernelPlane, PeerChange, ServerChange, ServerState } from '../kernel/plane';
import type { SyncOptions, SyncUndo } from '../kernel/server-sync';
import { UNTIMED, type KernelTiming } from '../kernel/timing';
import type { Logger } from '../log';
import type { Actor } from '../store/audit';
import type { Store } from '../store/store';
import { recordEvent } from './event-record';
import type { SiteLinkChange } from '../kernel/site-links';
import { peerEventData } from '../views/event-data';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';

export type KernelChange =
  | { peer: PeerChange }
  /** Many peers at once, one kernel batch (a boundary of access schedules). */
  | { peers: PeerChange[] }
  | { server: ServerChange }
  | { forward: ForwardChange }
  | { repair: KernelRepair }
  /** This router's link to another wgcp router (wgcp join). */
  | { siteLink: SiteLinkChange }
  /** A server synced to the store's rows (src/ops/kernel-sync.ts). */
  | { sync: KernelSync };

/** The one sync of a server: its undo is the partial sync back to the rows the kernel held before (`held`, set once applied). */
export interface KernelSync { serverId: number; desired: ServerState | null; opts: SyncOptions; held?: SyncUndo }

/** The reconciler's repair: puts the kernel back to what the store says; it has no inverse (undoing it would break the kernel again). */
export interface KernelRepair { what: string; run(): Promise<void> }

/** What the commit step is handed: the store to write and the recorder of the change's events. */
export interface Commit {
  store: Store;
  event(name: Exclude<EventName, PeerEventName>, serverId: number, data: Record<string, unknown>): void;
  /** A peer's event: its public payload, and the typed notice the daemon's own subscribers hear. Returns the payload. */
  peerEvent(name: PeerEventName, server: Pick<ServerRecord, 'id' | 'mode'>, peer: PeerRecord, extra?: { change?: string; source?: string }): ReturnType<typeof peerEventData>;
  /** The change ends this key's or token's access: after the commit, what it holds open (the live stream) is closed. */
  accessEnded(credentialId: number): void;
}

/** What the audit log says of a change: what it acted on and a summary (secret-named fields are dropped). */
export interface AuditNote { targetType: string; targetId: string | number | null; summary?: Record<string, unknown> }

/** A planned change: its kernel delta, the writes that make it so in the store, and its audit note. */
export interface Planned<R> {
  kernel?: KernelChange[];
  commit(c: Commit): R;
  /** From the commit's result; absent: the action's noun, no id. `false`: bookkeeping the audit log leaves out (a usage cycle). */
  audit?: ((result: R) => AuditNote | null) | false;
}

export type Plan<R> = (store: Store) => Planned<R>;

export interface ChangeOptions {
  actor?: Actor;
  /** A standby's own following of its primary (applied rows, a snapshot): admitted on a standby and never journaled again. */
  replicated?: boolean;
  /** A usage cycle: its usage totals may reach the standby with a later cycle (src/ops/ha-journal.ts). */
  deferrable?: boolean;
}

/**
 * The standby pair's hold on every change (src/ops/ha-journal.ts): refuses it on a standby,
 * opens the journal around its commit (inside the transaction: the change gets its
 * sequence there) and, after its turn, waits until the partner holds it.
 */
export interface ChangeJournal {
  admit(action: string, opts: ChangeOptions): void;
  /** Inside the commit's transaction, before the change's rows. */
  begin(store: Store, opts: ChangeOptions): void;
  /** Inside the transaction, after them: the change's sequence, or null when it is not counted (a follower's own). */
  end(store: Store): number | null;
  /** Always, once the transaction ended (committed or not). */
  close(): void;
  /** Resolves once the partner holds the change (or it is gone, or the bounded wait ended). */
  held(seq: number): Promise<void>;
}

/** The daemon's own jobs and the CLI on the database, as the audit log names them. */
export const jobActor = (name: string): Actor => ({ kind: 'job', id: null, name, role: null, address: null });
export const CLI_ACTOR: Actor = { kind: 'cli', id: null, name: 'wgcp', role: 'admin', address: null };
/** A change without an actor named by its caller. */
const UNNAMED: Actor = { kind: 'job', id: null, name: 'wgcpd', role: null, address: null };

/** The inverse of a kernel change: applied when a later step of the same change fails. */
export function inverseOf(k: KernelChange): KernelChange {
  if ('peers' in k) return { peers: [...k.peers].reverse().map((peer) => (inverseOf({ peer }) as { peer: PeerChange }).peer) };
  if ('peer' in k) {
    const { before, after, forwards } = k.peer;
    return { peer: { ...k.peer, before: after, after: before, forwards: forwards && { before: forwards.after, after: forwards.before } } };
  }
  if ('server' in k) return { server: { ...k.server, before: k.server.after, after: k.server.before } };
  if ('repair' in k) return { repair: { what: k.repair.what, run: async () => {} } };
  if ('siteLink' in k) return { siteLink: { before: k.siteLink.after, after: k.siteLink.before } };
  if ('sync' in k) return k.sync.held ? { sync: syncBack(k.sync.serverId, k.sync.held) } : { repair: { what: 'sync', run: async () => {} } };
  return { forward: { ...k.forward, before: k.forward.after, after: k.forward.before } };
}

/** The sync back to the rows held before a sync: what it made removed, what it changed put back (a full sync's repairs stay). */
function syncBack(serverId: number, held: SyncUndo): KernelSync {
  if (held.server === null) return { serverId, desired: null, opts: { peers: 'all' } };
  return { serverId, desired: { server: held.server, peers: held.peers, forwards: held.forwards }, opts: { peers: held.ids } };
}

/** The id of what a change made or changed, read off its result (a record, a device, a server with its peers). */
function idOf(r: unknown): string | number | null {
  if (r === null || typeof r !== 'object') return null;
  const o = r as { id?: unknown; deviceId?: unknown; device?: { deviceId?: unknown }; server?: { id?: unknown } };
  // A device id is a credential: the log names a device by its prefix, as events do.
  const device = o.deviceId ?? o.device?.deviceId;
  if (typeof device === 'string') return device.slice(0, 8);
  const id = o.id ?? o.server?.id;
  return typeof id === 'number' || typeof id === 'string' ? id : null;
}

/** How long a kernel step may take before the log says a change waits for it. */
const SLOW_KERNEL_MS = 1000;

const describe = (k: KernelChange): string => ('peers' in k ? 'peers' : 'peer' in k ? 'peer' : 'server' in k ? 'server' : 'repair' in k ? 'repair' : 'sync' in k ? 'sync' : 'siteLink' in k ? 'site link' : 'forward');
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class ChangeRunner {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;
  /** Changes committed so far (for tests and metrics). */
  committed = 0;
  /** The last commit the storage refused (a full disk), until a change commits again: /healthz shows it. */
  writeFailure: WriteFailure | null = null;
  private journal: ChangeJournal | null = null;

  /** `timing`: each kernel change applied is timed by kind (src/metrics/kernel-timing.ts). */
  constructor(private readonly store: Store, private readonly kernel: KernelPlane, private readonly bus: EventBus, private readonly log: Logger,
    private readonly timing: KernelTiming = UNTIMED) {
    kernel.setSerializer?.((what, work) => this.serialize(what, work));
  }

  /** Set once by the daemon's wiring when the store keeps a change journal (src/ops/ha-journal.ts). */
  setJournal(journal: ChangeJournal): void { this.journal = journal; }

  /** Changes waiting or under way. */
  queued(): number { return this.pending; }

  /** Runs one change in its turn; resolves with what its commit returned. */
  run<R>(action: string, plan: Plan<R>, opts: ChangeOptions = {}): Promise<R> {
    const journal = this.journal;
    if (!journal) return this.enqueue(() => this.execute(action, plan, opts)).then((c) => c.result);
    // The wait for the partner is outside the queue: the next change need not wait for it.
    return this.enqueue(() => this.execute(action, plan, opts)).then(async (c) => {
      if (c.seq !== null) await journal.held(c.seq);
      return c.result;
    });
  }

  /** Kernel work that changes no row and is no sync (a site link restored after wireguard-go restarted, spare bandwidth classes), in the same order. */
  serialize(what: string, work: () => Promise<void>): Promise<void> {
    return this.enqueue(async () => {
      try {
        await work();
      } catch (err) {
        this.log.error('kernel work failed', { what, error: message(err) });
      }
    });
  }

  /** Resolves once every change asked for so far has ended. */
  async idle(): Promise<void> {
    while (this.pending > 0) await this.tail.catch(() => {});
  }

  private enqueue<R>(work: () => Promise<R>): Promise<R> {
    this.pending++;
    const p = this.tail.then(work).finally(() => { this.pending--; });
    this.tail = p.catch(() => {});
    return p;
  }

  private async execute<R>(action: string, plan: Plan<R>, opts: ChangeOptions): Promise<{ result: R; seq: number | null }> {
    const { store, journal } = this;
    journal?.admit(action, opts);
    const planned = store.read(() => plan(store));
    const applied: KernelChange[] = [];
    // An operator sees a change stuck behind a tool before its bound ends it.
    const slow = setTimeout(() => this.log.warn('a change is waiting for the kernel', { action, waitedMs: SLOW_KERNEL_MS }), SLOW_KERNEL_MS);
    try {
      for (const k of planned.kernel ?? []) {
        try {
          await this.apply(k);
          applied.push(k);
        } catch (err) {
          await this.undo(action, applied);
          throw kernelError(err);
        }
      }
    } finally {
      clearTimeout(slow);
    }
    let events: WgcpEvent[] = [];
    let ended: number[] = [];
    let notices: ChangeNotice[] = [];
    let result: R;
    let seq: number | null = null;
    try {
      result = store.tx(() => {
        events = [];
        ended = [];
        notices = [];
        journal?.begin(store, opts);
        const at = this.bus.now();
        const r = planned.commit({
          store,
          event: (name, serverId, data) => {
            events.push(recordEvent(store, at, name, serverId, data));
            if (name === 'serverChanged') notices.push({ kind: 'server', id: serverId });
          },
          peerEvent: (name, server, peer, extra) => {
            const data = peerEventData(server, peer, extra);
            events.push(recordEvent(store, at, name, server.id, data));
            const gone = name === 'peerDeleted' || name === 'peerExpired';
            notices.push({ kind: 'peer', id: peer.id, gone, enabled: peer.enabled, schedule: peer.schedule ?? null });
            return data;
          },
          accessEnded: (credentialId) => { ended.push(credentialId); },
        });
        // The audit row is the change's own: written in its transaction, or the change fails.
        if (planned.audit !== false) {
          const note = planned.audit ? planned.audit(r) : { targetType: action.split('.')[0], targetId: idOf(r) };
          if (note) store.audit.append({ at: at.toISOString(), actor: opts.actor ?? UNNAMED, action, ...note });
        }
        seq = journal ? journal.end(store) : null;
        return r;
      });
    } catch (err) {
      seq = null;
      journal?.close();
      await this.undo(action, applied);
      const code = isStorageFailure(err);
      if (code) this.writeFailure = { at: this.bus.now().toISOString(), code, message: message(err) };
      // A rule that can only be judged on the rows as written (the last admin) refuses here: a refusal, not a failure.
      if (isHttpError(err) && err.status < 500) this.log.info('a change was refused at its commit', { action, status: err.status, error: message(err) });
      else this.log.error('a change could not be committed; its kernel step was undone', { action, error: message(err) });
      throw isHttpError(err) ? err : apiError('WGCP_STORE_FAILED', { reason: message(err) });
    }
    journal?.close();
    this.committed++;
    this.writeFailure = null;
    this.bus.announce(events);
    this.bus.announceChanges(notices);
    this.bus.announceAccessEnded(ended);
    return { result, seq };
  }

  private apply(k: KernelChange): Promise<void> {
    if ('peers' in k) return this.timing.time('peer', () => this.applyPeers(k.peers));
    if ('peer' in k) return this.timing.time('peer', () => this.kernel.applyPeer(k.peer));
    if ('server' in k) return this.timing.time('server', () => this.kernel.applyServer(k.server));
    if ('repair' in k) return k.repair.run();
    if ('siteLink' in k) return this.kernel.applySiteLink?.(k.siteLink) ?? Promise.resolve();
    if ('sync' in k) return this.timing.time('sync', async () => { k.sync.held = await this.kernel.syncServer(k.sync.serverId, k.sync.desired, k.sync.opts); });
    return this.timing.time('forward', () => this.kernel.applyForward(k.forward));
  }

  /** A batch of peers as the backend takes it, or one by one (each undone if a later one fails). */
  private async applyPeers(changes: PeerChange[]): Promise<void> {
    if (changes.length === 0) return;
    if (this.kernel.applyPeers) return this.kernel.applyPeers(changes);
    const done: PeerChange[] = [];
    try {
      for (const c of changes) { await this.kernel.applyPeer(c); done.push(c); }
    } catch (err) {
      if (done.length) await this.undo('peers', [{ peers: done }]);
      throw err;
    }
  }

  private async undo(action: string, applied: KernelChange[]): Promise<void> {
    for (const k of [...applied].reverse()) {
      try {
        await this.apply(inverseOf(k));
      } catch (err) {
        this.log.error('undoing a kernel change failed: the kernel may differ from the database until restart', { action, step: describe(k), error: message(err) });
      }
    }
  }
}

/** A kernel failure keeps its status when it has one (a foreign link is a 409), else it is a 500 with the tool's words. */
function kernelError(err: unknown): Error {
  if (isHttpError(err)) return err;
  return apiError('WGCP_KERNEL_FAILED', { reason: message(err) });
}
