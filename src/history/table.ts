// The traffic history's tables, one a tier (traffic_5m, traffic_1h, traffic_1d), each keyed
// (t, subject): a subject is a peer id, or -(server id) for a server's sum over its peers.
// Time leads the key so that every write lands at the end of its table (a closed 5-minute
// bucket, an hour or a day rolled up) and every prune at its start: few pages touched,
// pages full, which is what a router's flash wants. Reads seek bucket by bucket instead.
import type { Statement } from 'better-sqlite3';
import type { DB } from '../store/db';
import { RowBatches } from '../store/row-batches';
import { TIERS, type Tier } from './tiers';

/** One subject's bytes in one bucket: [bucket start, subject, rx bytes, tx bytes]. */
export type HistoryRow = [number, number, number, number];

export interface BucketBytes { t: number; rxBytes: number; txBytes: number }

export interface TopRow { peerId: number; rxBytes: number; txBytes: number }

/** The subject of a server's sums. */
export const serverSubject = (serverId: number): number => -serverId;

interface TierStatements {
  rollUp: Statement<unknown[]> | null;
  drop: Statement<unknown[]>;
  first: Statement<unknown[]>;
  last: Statement<unknown[]>;
  seek: Statement<unknown[]>;
  count: Statement<unknown[]>;
}

export class HistoryTable {
  private readonly addRows;
  private readonly topStmt;
  private readonly tiers: TierStatements[];

  constructor(db: DB) {
    // A closed bucket's rows bound in batches (10,000 rows: 9 ms, where one JSON array took
    // 25); adding (not replacing) keeps a bucket whole when a restart wrote part of it before.
    this.addRows = new RowBatches(db, (rows) => `INSERT INTO traffic_5m (t, subject, rx_bytes, tx_bytes) VALUES ${rows}
      ON CONFLICT (t, subject) DO UPDATE SET rx_bytes = rx_bytes + excluded.rx_bytes, tx_bytes = tx_bytes + excluded.tx_bytes`, 4);
    this.topStmt = db.prepare(`SELECT subject AS peerId, SUM(rx_bytes) AS rxBytes, SUM(tx_bytes) AS txBytes FROM traffic_5m
      WHERE t >= ? AND subject > 0 GROUP BY subject ORDER BY SUM(rx_bytes) + SUM(tx_bytes) DESC, subject LIMIT ?`);
    this.tiers = TIERS.map((tier, i) => this.prepareTier(db, tier, TIERS[i + 1] ?? null));
  }

  private prepareTier(db: DB, tier: Tier, next: Tier | null): TierStatements {
    const table = tier.table;
    return {
      rollUp: next && db.prepare(`INSERT INTO ${next.table} (t, subject, rx_bytes, tx_bytes)
        SELECT t - t % ${next.seconds}, subject, SUM(rx_bytes), SUM(tx_bytes) FROM ${table} WHERE t >= ? AND t < ?
        GROUP BY t - t % ${next.seconds}, subject
        ON CONFLICT (t, subject) DO UPDATE SET rx_bytes = rx_bytes + excluded.rx_bytes, tx_bytes = tx_bytes + excluded.tx_bytes`),
      drop: db.prepare(`DELETE FROM ${table} WHERE t >= ? AND t < ?`),
      first: db.prepare(`SELECT MIN(t) FROM ${table}`).pluck(),
      last: db.prepare(`SELECT MAX(t) FROM ${table}`).pluck(),
      // One seek a bucket: every bucket start from @from to before @to, of one subject.
      seek: db.prepare(`WITH RECURSIVE b(t) AS (SELECT @from WHERE @from < @to UNION ALL SELECT t + @step FROM b WHERE t + @step < @to)
        SELECT x.t, x.rx_bytes AS rxBytes, x.tx_bytes AS txBytes FROM b CROSS JOIN ${table} x ON x.t = b.t AND x.subject = @subject`),
      count: db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck(),
    };
  }

  /**
   * Adds one closed 5-minute bucket starting at `t`, from its bytes by subject (subjects at
   * zero are left out). Written in subject order, so the rows go into the table's last pages
   * in one pass; the subjects are sorted as numbers in a typed array (a row array a subject,
   * sorted by a comparator, cost 5 to 20 ms at 10,000 subjects, most of it collecting them).
   */
  addBucket(t: number, bytes: ReadonlyMap<number, readonly [number, number]>): void {
    const moved = new Float64Array(bytes.size);
    let n = 0;
    for (const [subject, [rx, tx]] of bytes) if (rx !== 0 || tx !== 0) moved[n++] = subject;
    const subjects = moved.subarray(0, n).sort();
    this.addRows.run(subjects.length, (i, args, at) => {
      const subject = subjects[i];
      const [rx, tx] = bytes.get(subject)!;
      args[at] = t;
      args[at + 1] = subject;
      args[at + 2] = rx;
      args[at + 3] = tx;
    });
  }

  /** Adds rows of any buckets (tests put history of the past in with it). */
  add(rows: readonly HistoryRow[]): void {
    this.addRows.run(rows.length, (i, args, at) => {
      const row = rows[i];
      for (let c = 0; c < 4; c++) args[at + c] = row[c];
    });
  }

  /**
   * One step of the roll-up, for the caller's transaction: the oldest bucket of the finest
   * tier that holds rows older than its cutoff moves up a tier (summed into the next tier's
   * bucket, which adds, so a bucket made in pieces is whole) or, from the last tier, is
   * dropped. False when no tier has rows past its cutoff. Finest tier first, so after a long
   * stop a row goes as far up as its age says.
   */
  rollUpStep(cutoffs: readonly number[]): boolean {
    for (let i = 0; i < this.tiers.length; i++) {
      const s = this.tiers[i];
      const first = s.first.get() as number | null;
      if (first === null || first >= cutoffs[i]) continue;
      const end = Math.min(first + TIERS[i].seconds, cutoffs[i]);
      s.rollUp?.run(first, end);
      s.drop.run(first, end);
      return true;
    }
    return false;
  }

  /** The whole roll-up at once (tests and tools; the daemon goes a step a turn). */
  rollUp(cutoffs: readonly number[]): void {
    while (this.rollUpStep(cutoffs));
  }

  /** A subject's rows of tier i in [from, to), by seeks between the tier's first and last bucket. */
  bucketsOf(tierIndex: number, subject: number, from: number, to: number): BucketBytes[] {
    const s = this.tiers[tierIndex];
    const first = s.first.get() as number | null;
    const last = s.last.get() as number | null;
    if (first === null || last === null) return [];
    const seconds = TIERS[tierIndex].seconds;
    const start = Math.max(from - (((from % seconds) + seconds) % seconds), first);
    const end = Math.min(to, last + 1);
    return s.seek.all({ from: start, to: end, step: seconds, subject }) as BucketBytes[];
  }

  /** Peers by bytes moved in the 5-minute buckets from `since`, busiest first. */
  top(since: number, limit: number): TopRow[] { return this.topStmt.all(since, limit) as TopRow[]; }

  /** Rows held by each tier (tests and the bench). */
  rowCounts(): number[] { return this.tiers.map((s) => s.count.get() as number); }
}
