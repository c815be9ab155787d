// Writes the traffic history for the usage job, batched for flash: a cycle's bytes are added
// in memory to the open 5-minute bucket, and a bucket is written (one statement, one
// transaction) when the first cycle of the next one comes, or when the daemon stops. Only
// peers that moved traffic are in a cycle's rows, so idle peers write nothing. Once an hour
// the same transaction rolls old rows up a tier and drops what has aged out of the last.
// A crash loses the open bucket's history (at most 5 minutes); usage itself is not held here.
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { serverSubject, type HistoryTable } from './table';
import { bucketStart, cutoffs, TIERS, unixSeconds } from './tiers';

/** One peer's bytes in one usage cycle, from the router's side: [peer id, server id, rx, tx]. */
export type PeerTraffic = [number, number, number, number];

const FIRST_STEP = TIERS[0].seconds;
const MAINTAIN_EVERY = 3600;

export interface OpenBucket { t: number; bytes: ReadonlyMap<number, readonly [number, number]> }

export class HistoryRecorder {
  private open: { t: number; bytes: Map<number, [number, number]> } | null = null;
  // The last written bucket's map, its entries zeroed, for the next bucket: 10,000 entries
  // made again every five minutes outlived the young generation and burdened the old one.
  private spare: Map<number, [number, number]> | null = null;
  private maintainedAt: number | null = null;

  constructor(private readonly store: Store, readonly table: HistoryTable, private readonly log: Logger) {}

  /** Adds one usage cycle's traffic, seen at `at`, to its 5-minute bucket. */
  record(traffic: readonly PeerTraffic[], at: Date): void {
    const now = unixSeconds(at);
    const t = bucketStart(now, FIRST_STEP);
    if (this.open && this.open.t !== t) this.write(now);
    else if (this.maintenanceDue(now)) this.guarded('rolling up the traffic history', () => this.store.telemetryTx(() => this.maintain(now)));
    if (traffic.length === 0) return;
    if (!this.open) {
      this.open = { t, bytes: this.spare ?? new Map() };
      this.spare = null;
    }
    const open = this.open;
    for (const [peerId, serverId, rx, tx] of traffic) {
      if (rx === 0 && tx === 0) continue;
      add(open.bytes, peerId, rx, tx);
      add(open.bytes, serverSubject(serverId), rx, tx);
    }
  }

  /** The bucket being filled (not yet written), for readers that want the latest minutes. */
  openBucket(): OpenBucket | null { return this.open; }

  /** Writes the open bucket now (the daemon stops); the next start adds to the same row. */
  close(at: Date): void {
    if (this.open) this.write(unixSeconds(at));
  }

  private maintenanceDue(now: number): boolean {
    return this.maintainedAt !== bucketStart(now, MAINTAIN_EVERY);
  }

  private maintain(now: number): void {
    this.table.rollUp(cutoffs(now));
    this.maintainedAt = bucketStart(now, MAINTAIN_EVERY);
  }

  /** The open bucket's rows (and the hourly upkeep when due) in one transaction. */
  private write(now: number): void {
    const open = this.open!;
    this.open = null;
    this.guarded('writing the traffic history', () => this.store.telemetryTx(() => {
      this.table.addBucket(open.t, open.bytes);
      if (this.maintenanceDue(now)) this.maintain(now);
    }));
    // A subject idle for the whole bucket leaves the map (a deleted peer among them).
    for (const [subject, bytes] of open.bytes) {
      if (bytes[0] === 0 && bytes[1] === 0) open.bytes.delete(subject);
      else { bytes[0] = 0; bytes[1] = 0; }
    }
    this.spare = open.bytes;
  }

  /** History is telemetry: a failed write is logged and dropped, never fatal to the usage job. */
  private guarded(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error(`${what} failed`, { error: err instanceof Error ? err.message : String(err) });
    }
  }
}

function add(bytes: Map<number, [number, number]>, subject: number, rx: number, tx: number): void {
  const cur = bytes.get(subject);
  if (cur) { cur[0] += rx; cur[1] += tx; } else bytes.set(subject, [rx, tx]);
}
