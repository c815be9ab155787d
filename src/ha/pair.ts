// Where this router stands in its standby pair, in memory: its role, what it knows of its
// partner, and the changes waiting for the partner to hold them. It writes nothing (the
// journal and the epoch are the store's, written by src/ops/ha-*.ts).
//
// Interface (stable; ha-failover builds on it):
//   pairOf(app) -> Pair | undefined          the daemon's pair (undefined before it is wired)
//   Pair.role: 'primary' | 'standby' | 'alone'
//   Pair.onRole(fn)                           called after each change of role
//   onPromoted(app, hook)                     called once this router became primary (epoch raised);
//                                             hook({ epoch, seq }) may be async; its failure is logged
//   Pair.partnerStatus() -> { url, connected, behind }
import type { App } from '../app';
import type { HaPosition } from '../store/ha';

export type HaRole = 'primary' | 'standby' | 'alone';
export interface PartnerStatus { url: string; connected: boolean; behind: number }
export type PromotedHook = (at: HaPosition) => void | Promise<void>;

/** A poll that ended this long ago still counts the follower as connected (it is between two polls). */
const BETWEEN_POLLS_MS = 1500;

export class Pair {
  role: HaRole;
  /** On a primary: the last sequence the follower said it holds. On a standby: the primary's last sequence. */
  partnerSeq = 0;
  /** The partner's epoch, as last seen (a promotion goes above it). */
  partnerEpoch = 0;
  private openPolls = 0;
  private lastPollEnd = 0;
  /** A primary whose follower missed an ack wait counts it gone until it polls again. */
  private degraded = false;
  /** A standby's follower: whether its last request to the primary was answered. */
  followerConnected = false;
  private waiters: { seq: number; done: () => void }[] = [];
  private commitListeners = new Set<() => void>();
  private roleListeners: ((role: HaRole) => void)[] = [];
  readonly promotedHooks: PromotedHook[] = [];

  constructor(readonly partnerUrl: string | null, private readonly ackWaitMs: number, private readonly position: () => HaPosition,
    /** On a primary: the journaled changes after a sequence (what a follower there does not hold). */
    private readonly changesAfter: (seq: number) => number = () => 0) {
    this.role = partnerUrl === null ? 'alone' : 'standby';
  }

  /** Primary or alone: this router takes writes and runs the jobs that write. */
  acts(): boolean { return this.role !== 'standby'; }

  setRole(role: HaRole): void {
    if (this.role === role) return;
    this.role = role;
    this.degraded = false;
    this.partnerSeq = 0;
    this.followerConnected = false;
    this.releaseWaiters();
    for (const l of this.roleListeners) l(role);
  }

  onRole(fn: (role: HaRole) => void): void { this.roleListeners.push(fn); }

  connected(): boolean {
    if (this.role === 'alone') return false;
    if (this.role === 'standby') return this.followerConnected;
    return !this.degraded && (this.openPolls > 0 || Date.now() - this.lastPollEnd < BETWEEN_POLLS_MS);
  }

  partnerStatus(): PartnerStatus | null {
    if (this.partnerUrl === null) return null;
    const own = this.position().seq;
    const behind = this.role === 'primary' ? this.changesAfter(this.partnerSeq) : Math.max(0, this.partnerSeq - own);
    return { url: this.partnerUrl, connected: this.connected(), behind };
  }

  /** The follower asked for the changes after `seq`: it holds every one up to it. */
  pollOpened(seq: number): void {
    this.openPolls++;
    this.degraded = false;
    this.partnerSeq = Math.max(this.partnerSeq, seq);
    this.waiters = this.waiters.filter((w) => (w.seq <= seq ? (w.done(), false) : true));
  }

  /** A poll ended; one that ended unanswered is a follower gone (killed, cut off): no change waits for it. */
  pollClosed(answered: boolean): void {
    this.openPolls = Math.max(0, this.openPolls - 1);
    this.lastPollEnd = answered ? Date.now() : 0;
    if (!this.connected()) this.releaseWaiters();
  }

  /** A connection that carried polls closed: with no poll open, the follower is gone (no change waits for it). */
  connectionClosed(): void {
    if (this.openPolls > 0) return;
    this.lastPollEnd = 0;
    this.releaseWaiters();
  }

  /** A change committed (journaled or not): the waiting polls answer it. */
  committed(): void {
    for (const l of [...this.commitListeners]) l();
  }

  /** Resolves when a change commits after this call (a waiting poll answers then), or after `ms`. */
  nextCommit(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => { clearTimeout(timer); this.commitListeners.delete(done); resolve(); };
      const timer = setTimeout(done, ms);
      this.commitListeners.add(done);
    });
  }

  /** A journaled change committed: the waiting polls answer it, and it waits (bounded) until the follower holds it. */
  held(seq: number): Promise<void> {
    if (this.role !== 'primary' || !this.connected() || this.partnerSeq >= seq) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        // The standby did not take it in time: the pair is degraded until it polls again.
        this.degraded = true;
        this.releaseWaiters();
      }, this.ackWaitMs);
      this.waiters.push({ seq, done: () => { clearTimeout(timer); resolve(); } });
    });
  }

  private releaseWaiters(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const x of w) x.done();
  }
}

// The pair is one of the App's services (src/services.ts); these keep the stable interface.
export const attachPair = (app: App, pair: Pair): void => { app.services.pair = pair; };
export const pairOf = (app: App): Pair | undefined => app.services.pair ?? undefined;

/** ha-failover's wake-up of peers plugs in here: run after each promotion of this router. */
export function onPromoted(app: App, hook: PromotedHook): void {
  const pair = pairOf(app);
  if (!pair) throw new Error('onPromoted: the daemon has no standby pair wired');
  pair.promotedHooks.push(hook);
}
