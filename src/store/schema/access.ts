// Schema migrations 11-13 (src/store/migrations.ts joins the files in order): who may do
// what (issue 26), access schedules and bandwidth limits (issue 25). Never edit a shipped entry.
export const ACCESS_MIGRATIONS: readonly string[] = [
  // ---- Issue 26 (roles, two-factor sign-in, audit log, one-time config links) ----
  // Roles on keys and tokens (existing ones stay all-powerful: admin). TOTP per credential,
  // its recovery codes hashed. The audit log refuses UPDATE and DELETE; only the daemon's
  // prune (src/store/audit.ts) may delete, rows older than the cut-off it sets in
  // audit_prune, and setting that needs wgcp_audit_prune(), a function only the prune
  // registers on its own connection (sqlite3 and every other connection lack it).
  // One-time config links, stored by the SHA-256 of their token.
  `
  ALTER TABLE credentials ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'operator', 'viewer'));
  CREATE TABLE totp (
    credential_id INTEGER PRIMARY KEY REFERENCES credentials(id) ON DELETE CASCADE,
    secret TEXT NOT NULL,
    confirmed_at TEXT,
    last_step INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE totp_recovery (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    credential_id INTEGER NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
    hash TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX totp_recovery_credential ON totp_recovery(credential_id);
  CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    actor_kind TEXT NOT NULL,
    actor_id INTEGER,
    actor_name TEXT NOT NULL DEFAULT '',
    address TEXT,
    role TEXT,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL DEFAULT '',
    target_id TEXT,
    summary TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX audit_log_at ON audit_log(at);
  CREATE TABLE audit_prune (id INTEGER PRIMARY KEY CHECK (id = 1), before TEXT);
  INSERT INTO audit_prune (id, before) VALUES (1, NULL);
  CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only: rows cannot be changed');
  END;
  CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
  WHEN (SELECT before FROM audit_prune WHERE id = 1) IS NULL OR OLD.at >= (SELECT before FROM audit_prune WHERE id = 1) BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only: only wgcpd prunes rows past their age');
  END;
  CREATE TRIGGER audit_prune_guard BEFORE UPDATE ON audit_prune
  WHEN NEW.before IS NOT NULL AND wgcp_audit_prune(NEW.before) IS NOT 1 BEGIN
    SELECT RAISE(ABORT, 'audit_log is pruned by wgcpd only');
  END;
  CREATE TRIGGER audit_prune_no_delete BEFORE DELETE ON audit_prune BEGIN
    SELECT RAISE(ABORT, 'audit_prune cannot be deleted');
  END;
  CREATE TRIGGER audit_prune_no_insert BEFORE INSERT ON audit_prune BEGIN
    SELECT RAISE(ABORT, 'audit_prune has its one row');
  END;
  CREATE TABLE share_links (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    peer_id INTEGER NOT NULL REFERENCES peers(id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    revoked_at TEXT,
    created_by TEXT NOT NULL DEFAULT ''
  );
  CREATE INDEX share_links_peer ON share_links(peer_id);
  `,
  // ---- end of issue 26 ----
  // ---- Issue 25 (access schedules) ----
  // A peer's access schedule, JSON ({timezone, windows}) or NULL for none; the partial index
  // lets start-up read only the scheduled peers.
  `
  ALTER TABLE peers ADD COLUMN schedule TEXT;
  CREATE INDEX peers_scheduled ON peers(id) WHERE schedule IS NOT NULL;
  `,
  // ---- end of issue 25 (access schedules) ----
  // ---- Issue 25 (per-peer bandwidth limits) ----
  `
  ALTER TABLE peers ADD COLUMN download_limit_mbps REAL CHECK (download_limit_mbps IS NULL OR download_limit_mbps BETWEEN 0.1 AND 10000);
  ALTER TABLE peers ADD COLUMN upload_limit_mbps REAL CHECK (upload_limit_mbps IS NULL OR upload_limit_mbps BETWEEN 0.1 AND 10000);
  `,
  // ---- end of issue 25 ----
];
