// Writes the traffic history for the usage job, batched for flash: a cycle's bytes are added
// in memory to the open 5-minute bucket; when the first cycle of the next bucket comes, the
// closed one is written (one transaction) on a later turn of the event loop, not inside the
// usage cycle, and readers see it in memory until then. Only peers that moved traffic are in
// a cycle's rows, so idle peers write nothing. Once an hour old rows roll up a tier, one
// bucket of a tier a turn (each its own transaction, every byte in exactly one tier at any
// moment), so the roll-up of 10,000 peers never holds the event loop for long.
// A crash loses what is held in memory (at most 5 minutes); usage itself is not held here.
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { serverSubject, type HistoryTable } from './table';
import { bucketStart, cutoffs, TIERS, unixSeconds } from './tiers';

/** One peer's bytes in one usage cycle, from the router's side: [peer id, server id, rx, tx]. */
export type PeerTraffic = [number, number, number, number];

const FIRST_STEP = TIERS[0].seconds;
const MAINTAIN_EVERY = 3600;

export interface HeldBucket { t: number; bytes: ReadonlyMap<number, readonly [number, number]> }

type Bucket = { t: number; bytes: Map<number, [number, number]> };

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class HistoryRecorder {
  private open: Bucket | null = null;
  /** Closed buckets not yet written, oldest first. */
  private readonly closed: Bucket[] = [];
  // The last written bucket's map, its entries zeroed, for the next bucket: 10,000 entries
  // made again every five minutes outlived the young generation and burdened the old one.
  private spare: Map<number, [number, number]> | null = null;
  private maintainedAt: number | null = null;
  /** The cutoffs of the roll-up under way, or null. */
  private rollingUpTo: number[] | null = null;
  private work: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly store: Store, readonly table: HistoryTable, private readonly log: Logger) {}

  /** Adds one usage cycle's traffic, seen at `at`, to its 5-minute bucket. */
  record(traffic: readonly PeerTraffic[], at: Date): void {
    if (this.stopped) return;
    const now = unixSeconds(at);
    const t = bucketStart(now, FIRST_STEP);
    if (this.open && this.open.t !== t) {
      this.closed.push(this.open);
      this.open = null;
    }
    if (this.maintainedAt !== bucketStart(now, MAINTAIN_EVERY)) {
      this.maintainedAt = bucketStart(now, MAINTAIN_EVERY);
      this.rollingUpTo = cutoffs(now);
    }
    for (const [peerId, serverId, rx, tx] of traffic) {
      if (rx === 0 && tx === 0) continue;
      if (!this.open) {
        this.open = { t, bytes: this.spare ?? new Map() };
        this.spare = null;
      }
      add(this.open.bytes, peerId, rx, tx);
      add(this.open.bytes, serverSubject(serverId), rx, tx);
    }
    if (this.closed.length > 0 || this.rollingUpTo) this.work ??= this.drain();
  }

  /** Buckets held in memory, oldest first: closed ones not yet written, then the open one. */
  heldBuckets(): HeldBucket[] { return this.open ? [...this.closed, this.open] : [...this.closed]; }

  /** Settles once the closed buckets are written and the roll-up under way is done. */
  settled(): Promise<void> { return this.work ?? Promise.resolve(); }

  /** Writes what is held now (the daemon stops); the next start adds to the same rows. */
  close(): void {
    this.stopped = true;
    for (const bucket of this.closed.splice(0)) this.write(bucket);
    if (this.open) this.write(this.open);
    this.open = null;
  }

  /** One piece of work a turn of the event loop: the oldest closed bucket, else a roll-up step. */
  private async drain(): Promise<void> {
    for (;;) {
      await nextTurn();
      if (this.stopped) break;
      const bucket = this.closed.shift();
      if (bucket) {
        this.write(bucket);
        this.recycle(bucket.bytes);
      } else if (this.rollingUpTo) {
        const to = this.rollingUpTo;
        // A failed step ends this hour's roll-up; the next hour tries again from where it is.
        const more = this.guarded('rolling up the traffic history', () => this.store.telemetryTx(() => this.table.rollUpStep(to)));
        if (!more) this.rollingUpTo = null;
      } else break;
    }
    this.work = null;
  }

  private write(bucket: Bucket): void {
    this.guarded('writing the traffic history', () => this.store.telemetryTx(() => this.table.addBucket(bucket.t, bucket.bytes)));
  }

  /** A subject idle for the whole bucket leaves the map (a deleted peer among them); the rest start again at zero. */
  private recycle(bytes: Map<number, [number, number]>): void {
    for (const [subject, b] of bytes) {
      if (b[0] === 0 && b[1] === 0) bytes.delete(subject);
      else { b[0] = 0; b[1] = 0; }
    }
    this.spare = bytes;
  }

  /** History is telemetry: a failed write is logged and dropped, never fatal to the usage job. */
  private guarded<T>(what: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      this.log.error(`${what} failed`, { error: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  }
}

function add(bytes: Map<number, [number, number]>, subject: number, rx: number, tx: number): void {
  const cur = bytes.get(subject);
  if (cur) { cur[0] += rx; cur[1] += tx; } else bytes.set(subject, [rx, tx]);
}
