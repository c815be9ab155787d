// Usage bookkeeping: the month's usage and the last interface counters seen per peer (so
// deltas survive daemon restarts), the queries the limit/expiry/reset jobs run, and small
// named job state such as the current usage month. Both live in one narrow row a peer
// (peer_usage), written only for peers whose counters moved: a cycle at 10,000 busy peers
// rewrites about a hundred 4 KB pages, not the wide peers table (docs/operations.md, flash).

import { overLimitSql } from '../peer-state';
import type { DB } from './db';
import { parseReasons } from './peers';
import { RowBatches } from './row-batches';

export interface Baseline {
  /** The key the counters were read for: the peer's own key when its tag matches, else the stored tag. */
  publicKey: string;
  rxBytes: number;
  txBytes: number;
  latestHandshake: number;
}

/** A baseline as it is written: [peer id, public key, rx bytes, tx bytes, latest handshake]. */
export type BaselineRow = [number, string, number, number, number];

/** A peer as a usage cycle sees it: its key, whether it is on, and the counters last seen. */
export interface UsagePeer { id: number; serverId: number; publicKey: string; enabled: boolean; baseline: Baseline | null }

export interface UsageRow {
  id: number;
  serverId: number;
  usageBytes: number;
  dataLimitGB: number;
  enabled: boolean;
  /** The first of the peer's disable reasons, or "". */
  disabledReason: string;
  latestHandshake: number;
}

/** How much of a public key a baseline keeps: enough to see the key changed (48 bits). */
export const KEY_TAG_LENGTH = 8;
export const keyTag = (publicKey: string): string => publicKey.slice(0, KEY_TAG_LENGTH);

export class UsageTable {
  private readonly cycleStmt;
  private readonly versionStmt;
  /** The peer list of the last cycle with its baselines, valid while peersVersion stays. */
  private cache: { version: string; peers: UsagePeer[]; byId: Map<number, UsagePeer> } | null = null;
  private forgottenDuringRead: Set<number> | null = null;
  private readonly upsertBaselines;
  private readonly forgetStmt;
  private readonly usageAdds;
  private readonly overLimitStmt;
  private readonly zeroUsageStmt;
  private readonly restrictedStmt;
  private readonly snapshotStmt;
  private readonly onlineStmt;

  constructor(db: DB) {
    this.cycleStmt = db.prepare(`SELECT p.id, p.server_id, p.public_key, p.enabled, c.key_tag, c.rx_bytes, c.tx_bytes,
      c.latest_handshake FROM peers p LEFT JOIN peer_usage c ON c.peer_id = p.id ORDER BY p.id`).raw();
    this.versionStmt = db.prepare(`SELECT value FROM job_state WHERE name = 'peersVersion'`).pluck();
    // Rows bound in batches, inside the cycle's one transaction: at 10,000 peers 9 ms for the
    // baselines and 10 for the usage, where a call a row took 14 and 20, and statements fed a
    // JSON array 21 and 25 (building, then parsing the text cost more than the calls it saved).
    // One statement a batch writes a peer's usage and its new baseline together (one row).
    // A peer back on the interface reads 0 until it handshakes: the last known one is kept.
    this.upsertBaselines = new RowBatches(db, (rows) => `INSERT INTO peer_usage (peer_id, usage_bytes, key_tag, rx_bytes, tx_bytes, latest_handshake)
      VALUES ${rows}
      ON CONFLICT (peer_id) DO UPDATE SET usage_bytes = usage_bytes + excluded.usage_bytes, key_tag = excluded.key_tag,
      rx_bytes = excluded.rx_bytes, tx_bytes = excluded.tx_bytes,
      latest_handshake = CASE WHEN excluded.latest_handshake > 0 THEN excluded.latest_handshake ELSE latest_handshake END`, 6);
    // The last handshake is kept: the page says when the peer was last seen, not "never".
    this.forgetStmt = db.prepare('UPDATE peer_usage SET key_tag = NULL, rx_bytes = NULL, tx_bytes = NULL WHERE peer_id = ? AND key_tag IS NOT NULL');
    this.usageAdds = new RowBatches(db, (rows) => `INSERT INTO peer_usage (peer_id, usage_bytes) VALUES ${rows}
      ON CONFLICT (peer_id) DO UPDATE SET usage_bytes = usage_bytes + excluded.usage_bytes`, 2);
    this.overLimitStmt = db.prepare(`SELECT p.id FROM peers p JOIN peer_usage u ON u.peer_id = p.id WHERE p.enabled = 1
      AND ${overLimitSql('u.usage_bytes', 'p.data_limit_gb')} ORDER BY p.id`).pluck();
    this.zeroUsageStmt = db.prepare('UPDATE peer_usage SET usage_bytes = 0 WHERE usage_bytes <> 0');
    this.restrictedStmt = db.prepare(`SELECT id FROM peers WHERE instr(',' || disabled_reasons || ',', ',data_limit,') > 0 ORDER BY id`).pluck();
    this.snapshotStmt = db.prepare(`SELECT p.id, p.server_id AS serverId, COALESCE(c.usage_bytes, 0) AS usageBytes,
      p.data_limit_gb AS dataLimitGB, p.enabled, p.disabled_reasons AS disabledReasons,
      COALESCE(c.latest_handshake, 0) AS latestHandshake
      FROM peers p LEFT JOIN peer_usage c ON c.peer_id = p.id ORDER BY p.id`);
    // A baseline of another key (a re-keyed peer) or of a peer now off does not count.
    this.onlineStmt = db.prepare(`SELECT COUNT(*) FROM peer_usage c JOIN peers p ON p.id = c.peer_id
      WHERE p.server_id = ? AND p.enabled = 1 AND c.key_tag = substr(p.public_key, 1, ${KEY_TAG_LENGTH}) AND c.latest_handshake > 0 AND c.latest_handshake >= ?`).pluck();
  }

  /**
   * Every peer with the counters last seen for it, in id order. Read from the database only
   * when a trigger has bumped peersVersion (a peer added, deleted, re-keyed, moved, enabled or
   * disabled) since the last read; the baselines in between are kept by setBaselines.
   */
  cyclePeers(): UsagePeer[] {
    const version = String(this.versionStmt.get());
    if (this.cache?.version === version) return this.cache.peers;
    type Raw = [number, number, string, number, string | null, number | null, number | null, number | null];
    const peers = (this.cycleStmt.all() as Raw[]).map(([id, serverId, publicKey, enabled, bTag, rx, tx, hs]): UsagePeer => ({
      id, serverId, publicKey, enabled: enabled === 1,
      // The peer's own key string when the tag is its key's: the delta's key check compares whole keys.
      baseline: bTag === null ? null : { publicKey: bTag === keyTag(publicKey) ? publicKey : bTag, rxBytes: rx!, txBytes: tx!, latestHandshake: hs! },
    }));
    this.cache = { version, peers, byId: new Map(peers.map((p) => [p.id, p])) };
    return peers;
  }

  /** Drops the cached peer list (after a rolled-back cycle, the database is the truth again). */
  invalidate(): void { this.cache = null; }

  /**
   * Counters are read without holding the event loop; a peer whose baseline is forgotten
   * meanwhile (switched off, maybe on again) was read with counters from before that, which
   * must not be counted against the missing baseline. Returns a function that ends the read
   * and gives those peers.
   */
  beginCounterRead(): () => ReadonlySet<number> {
    const forgotten = new Set<number>();
    this.forgottenDuringRead = forgotten;
    return () => {
      if (this.forgottenDuringRead === forgotten) this.forgottenDuringRead = null;
      return forgotten;
    };
  }

  /**
   * Adds rx + tx to each peer's usage, from [peer id, server id, rx, tx] rows, and remembers
   * the counters seen for each peer in `baselines`: a peer in both is one row written once.
   */
  recordCycle(traffic: readonly (readonly [number, number, number, number])[], rows: readonly BaselineRow[]): void {
    const bytes = new Map<number, number>();
    for (const t of traffic) bytes.set(t[0], t[2] + t[3]);
    this.upsertBaselines.run(rows.length, (i, args, at) => {
      const row = rows[i];
      args[at] = row[0];
      args[at + 1] = bytes.get(row[0]) ?? 0;
      args[at + 2] = keyTag(row[1]);
      args[at + 3] = row[2];
      args[at + 4] = row[3];
      args[at + 5] = row[4];
      bytes.delete(row[0]);
    });
    // Traffic without a new baseline (not expected: moved counters are a new baseline) still counts.
    const rest = [...bytes];
    if (rest.length) this.addUsage(rest.map(([id, b]) => [id, 0, b, 0] as const));
    this.cacheBaselines(rows);
  }

  /** Remembers the counters seen for each peer (`_seenAt`: kept for callers; the narrow row keeps no time). */
  setBaselines(rows: readonly BaselineRow[], _seenAt?: string): void { this.recordCycle([], rows); }

  /** Adds rx + tx to each peer's usage, from [peer id, server id, rx, tx] rows. */
  addUsage(traffic: readonly (readonly [number, number, number, number])[]): void {
    this.usageAdds.run(traffic.length, (i, args, at) => {
      const row = traffic[i];
      args[at] = row[0];
      args[at + 1] = row[2] + row[3];
    });
  }

  private cacheBaselines(rows: readonly BaselineRow[]): void {
    for (const [id, publicKey, rxBytes, txBytes, latestHandshake] of rows) {
      const cached = this.cache?.byId.get(id);
      if (!cached) continue;
      // Updated in place: a new object a peer a cycle would be 10,000 objects that outlive
      // the young generation each minute, then collected again in the old one.
      const b = cached.baseline;
      if (b) { b.publicKey = publicKey; b.rxBytes = rxBytes; b.txBytes = txBytes; b.latestHandshake = latestHandshake; } else cached.baseline = { publicKey, rxBytes, txBytes, latestHandshake };
    }
  }

  /** The peer left the interface: its counters start again from zero when it returns. */
  forgetBaseline(peerId: number): void {
    this.forgetStmt.run(peerId);
    this.forgottenDuringRead?.add(peerId);
    const cached = this.cache?.byId.get(peerId);
    if (cached) cached.baseline = null;
  }

  /** Enabled peers whose usage has reached their limit. */
  overLimit(): number[] { return this.overLimitStmt.all() as number[]; }

  zeroAllUsage(): void { this.zeroUsageStmt.run(); }
  restrictedForLimit(): number[] { return this.restrictedStmt.all() as number[]; }

  snapshot(): UsageRow[] {
    type Raw = Omit<UsageRow, 'enabled' | 'disabledReason'> & { enabled: number; disabledReasons: string };
    return (this.snapshotStmt.all() as Raw[]).map(({ disabledReasons, ...r }) => ({ ...r, enabled: r.enabled === 1, disabledReason: parseReasons(disabledReasons)[0] ?? '' }));
  }

  /** A server's peers whose last handshake, as the last usage cycle read it, is at or after `sinceS` (Unix seconds). */
  onlineCount(serverId: number, sinceS: number): number { return this.onlineStmt.get(serverId, sinceS) as number; }
}
