// Usage bookkeeping: the last interface counters seen per peer (so deltas survive daemon
// restarts), the usage increments, the queries the limit/expiry/reset jobs run, and small
// named job state such as the current usage month.
import type { DB } from './db';
import { parseReasons } from './peers';
import { RowBatches } from './row-batches';

export interface Baseline {
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
  private readonly expiredStmt;
  private readonly zeroUsageStmt;
  private readonly restrictedStmt;
  private readonly snapshotStmt;
  private readonly onlineStmt;
  private readonly stateGet;
  private readonly stateSet;

  constructor(db: DB) {
    this.cycleStmt = db.prepare(`SELECT p.id, p.server_id, p.public_key, p.enabled, c.public_key, c.rx_bytes, c.tx_bytes,
      c.latest_handshake FROM peers p LEFT JOIN usage_counters c ON c.peer_id = p.id ORDER BY p.id`).raw();
    this.versionStmt = db.prepare(`SELECT value FROM job_state WHERE name = 'peersVersion'`).pluck();
    // Rows bound in batches, inside the cycle's one transaction: at 10,000 peers 9 ms for the
    // baselines and 10 for the usage, where a call a row took 14 and 20, and statements fed a
    // JSON array 21 and 25 (building, then parsing the text cost more than the calls it saved).
    this.upsertBaselines = new RowBatches(db, (rows) => `INSERT INTO usage_counters (peer_id, public_key, rx_bytes, tx_bytes, latest_handshake, seen_at)
      VALUES ${rows}
      ON CONFLICT (peer_id) DO UPDATE SET public_key = excluded.public_key, rx_bytes = excluded.rx_bytes,
      tx_bytes = excluded.tx_bytes, latest_handshake = excluded.latest_handshake, seen_at = excluded.seen_at`, 6);
    this.forgetStmt = db.prepare('DELETE FROM usage_counters WHERE peer_id = ?');
    this.usageAdds = new RowBatches(db, (rows) => `WITH d (id, bytes) AS (VALUES ${rows})
      UPDATE peers SET usage_bytes = usage_bytes + d.bytes FROM d WHERE peers.id = d.id`, 2);
    this.overLimitStmt = db.prepare(`SELECT id FROM peers WHERE enabled = 1 AND data_limit_gb > 0
      AND usage_bytes >= data_limit_gb * 1073741824 ORDER BY id`).pluck();
    this.expiredStmt = db.prepare(`SELECT id FROM peers WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY id`).pluck();
    this.zeroUsageStmt = db.prepare('UPDATE peers SET usage_bytes = 0 WHERE usage_bytes <> 0');
    this.restrictedStmt = db.prepare(`SELECT id FROM peers WHERE instr(',' || disabled_reasons || ',', ',data_limit,') > 0 ORDER BY id`).pluck();
    this.snapshotStmt = db.prepare(`SELECT p.id, p.server_id AS serverId, p.usage_bytes AS usageBytes,
      p.data_limit_gb AS dataLimitGB, p.enabled, p.disabled_reasons AS disabledReasons,
      COALESCE(c.latest_handshake, 0) AS latestHandshake
      FROM peers p LEFT JOIN usage_counters c ON c.peer_id = p.id ORDER BY p.id`);
    // A baseline of another key (a re-keyed peer) or of a peer now off does not count.
    this.onlineStmt = db.prepare(`SELECT COUNT(*) FROM usage_counters c JOIN peers p ON p.id = c.peer_id
      WHERE p.server_id = ? AND p.enabled = 1 AND c.public_key = p.public_key AND c.latest_handshake > 0 AND c.latest_handshake >= ?`).pluck();
    this.stateGet = db.prepare('SELECT value FROM job_state WHERE name = ?').pluck();
    this.stateSet = db.prepare('INSERT INTO job_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value');
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
    const peers = (this.cycleStmt.all() as Raw[]).map(([id, serverId, publicKey, enabled, bKey, rx, tx, hs]): UsagePeer => ({
      id, serverId, publicKey, enabled: enabled === 1,
      // The peer's own key string when it is the same key: one copy of 10,000 keys, not two.
      baseline: bKey === null ? null : { publicKey: bKey === publicKey ? publicKey : bKey, rxBytes: rx!, txBytes: tx!, latestHandshake: hs! },
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

  /** Adds rx + tx to each peer's usage, from [peer id, server id, rx, tx] rows. */
  addUsage(traffic: readonly (readonly [number, number, number, number])[]): void {
    this.usageAdds.run(traffic.length, (i, args, at) => {
      const row = traffic[i];
      args[at] = row[0];
      args[at + 1] = row[2] + row[3];
    });
  }

  /** Remembers the counters seen for each peer. */
  setBaselines(rows: readonly BaselineRow[], seenAt: string): void {
    this.upsertBaselines.run(rows.length, (i, args, at) => {
      const row = rows[i];
      for (let c = 0; c < 5; c++) args[at + c] = row[c];
      args[at + 5] = seenAt;
    });
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

  /** Peers whose expiresAt (UTC, same format) is at or before `now`. */
  expired(nowIso: string): number[] { return this.expiredStmt.all(nowIso) as number[]; }

  zeroAllUsage(): void { this.zeroUsageStmt.run(); }
  restrictedForLimit(): number[] { return this.restrictedStmt.all() as number[]; }

  snapshot(): UsageRow[] {
    type Raw = Omit<UsageRow, 'enabled' | 'disabledReason'> & { enabled: number; disabledReasons: string };
    return (this.snapshotStmt.all() as Raw[]).map(({ disabledReasons, ...r }) => ({ ...r, enabled: r.enabled === 1, disabledReason: parseReasons(disabledReasons)[0] ?? '' }));
  }

  /** A server's peers whose last handshake, as the last usage cycle read it, is at or after `sinceS` (Unix seconds). */
  onlineCount(serverId: number, sinceS: number): number { return this.onlineStmt.get(serverId, sinceS) as number; }

  getState(name: string): string | null { return (this.stateGet.get(name) as string | undefined) ?? null; }
  setState(name: string, value: string): void { this.stateSet.run(name, value); }
}
