// Usage bookkeeping: the last interface counters seen per peer (so deltas survive daemon
// restarts), the usage increments, the queries the limit/expiry/reset jobs run, and small
// named job state such as the current usage month.
import type { DB } from './db';

export interface Baseline {
  publicKey: string;
  rxBytes: number;
  txBytes: number;
  latestHandshake: number;
}

export interface PeerKey { id: number; serverId: number; publicKey: string; enabled: boolean }

export interface UsageRow {
  id: number;
  serverId: number;
  usageBytes: number;
  dataLimitGB: number;
  enabled: boolean;
  disabledReason: string;
  latestHandshake: number;
}

export class UsageTable {
  private readonly baselinesStmt;
  private readonly upsertBaseline;
  private readonly forgetStmt;
  private readonly addUsageStmt;
  private readonly peerKeysStmt;
  private readonly overLimitStmt;
  private readonly expiredStmt;
  private readonly zeroUsageStmt;
  private readonly restrictedStmt;
  private readonly snapshotStmt;
  private readonly stateGet;
  private readonly stateSet;

  constructor(db: DB) {
    this.baselinesStmt = db.prepare(`SELECT peer_id AS peerId, public_key AS publicKey, rx_bytes AS rxBytes,
      tx_bytes AS txBytes, latest_handshake AS latestHandshake FROM usage_counters`);
    this.upsertBaseline = db.prepare(`INSERT INTO usage_counters (peer_id, public_key, rx_bytes, tx_bytes, latest_handshake, seen_at)
      VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (peer_id) DO UPDATE SET public_key = excluded.public_key,
      rx_bytes = excluded.rx_bytes, tx_bytes = excluded.tx_bytes, latest_handshake = excluded.latest_handshake,
      seen_at = excluded.seen_at`);
    this.forgetStmt = db.prepare('DELETE FROM usage_counters WHERE peer_id = ?');
    this.addUsageStmt = db.prepare('UPDATE peers SET usage_bytes = usage_bytes + ? WHERE id = ?');
    this.peerKeysStmt = db.prepare('SELECT id, server_id AS serverId, public_key AS publicKey, enabled FROM peers ORDER BY id');
    this.overLimitStmt = db.prepare(`SELECT id FROM peers WHERE enabled = 1 AND data_limit_gb > 0
      AND usage_bytes >= data_limit_gb * 1073741824 ORDER BY id`).pluck();
    this.expiredStmt = db.prepare(`SELECT id FROM peers WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY id`).pluck();
    this.zeroUsageStmt = db.prepare('UPDATE peers SET usage_bytes = 0 WHERE usage_bytes <> 0');
    this.restrictedStmt = db.prepare(`SELECT id FROM peers WHERE disabled_reason = 'data_limit' ORDER BY id`).pluck();
    this.snapshotStmt = db.prepare(`SELECT p.id, p.server_id AS serverId, p.usage_bytes AS usageBytes,
      p.data_limit_gb AS dataLimitGB, p.enabled, p.disabled_reason AS disabledReason,
      COALESCE(c.latest_handshake, 0) AS latestHandshake
      FROM peers p LEFT JOIN usage_counters c ON c.peer_id = p.id ORDER BY p.id`);
    this.stateGet = db.prepare('SELECT value FROM job_state WHERE name = ?').pluck();
    this.stateSet = db.prepare('INSERT INTO job_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value');
  }

  baselines(): Map<number, Baseline> {
    const out = new Map<number, Baseline>();
    for (const r of this.baselinesStmt.all() as (Baseline & { peerId: number })[]) {
      out.set(r.peerId, { publicKey: r.publicKey, rxBytes: r.rxBytes, txBytes: r.txBytes, latestHandshake: r.latestHandshake });
    }
    return out;
  }

  setBaseline(peerId: number, b: Baseline, seenAt: string): void {
    this.upsertBaseline.run(peerId, b.publicKey, b.rxBytes, b.txBytes, b.latestHandshake, seenAt);
  }

  /** The peer left the interface: its counters start again from zero when it returns. */
  forgetBaseline(peerId: number): void { this.forgetStmt.run(peerId); }

  addUsage(peerId: number, bytes: number): void { this.addUsageStmt.run(bytes, peerId); }

  peerKeys(): PeerKey[] {
    return (this.peerKeysStmt.all() as (Omit<PeerKey, 'enabled'> & { enabled: number })[]).map((r) => ({ ...r, enabled: r.enabled === 1 }));
  }

  /** Enabled peers whose usage has reached their limit. */
  overLimit(): number[] { return this.overLimitStmt.all() as number[]; }

  /** Peers whose expiresAt (UTC, same format) is at or before `now`. */
  expired(nowIso: string): number[] { return this.expiredStmt.all(nowIso) as number[]; }

  zeroAllUsage(): void { this.zeroUsageStmt.run(); }
  restrictedForLimit(): number[] { return this.restrictedStmt.all() as number[]; }

  snapshot(): UsageRow[] {
    return (this.snapshotStmt.all() as (Omit<UsageRow, 'enabled'> & { enabled: number })[]).map((r) => ({ ...r, enabled: r.enabled === 1 }));
  }

  getState(name: string): string | null { return (this.stateGet.get(name) as string | undefined) ?? null; }
  setState(name: string, value: string): void { this.stateSet.run(name, value); }
}
