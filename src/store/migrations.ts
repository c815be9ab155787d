// Schema migrations, applied in order and keyed on PRAGMA user_version: entry N moves the
// schema from version N to N+1. Never edit a shipped entry; append a new one.
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE servers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('forward', 'standalone')),
    interface TEXT NOT NULL UNIQUE,
    address TEXT NOT NULL,
    listen_port INTEGER NOT NULL UNIQUE,
    dns TEXT NOT NULL,
    mtu INTEGER,
    private_key TEXT NOT NULL,
    public_key TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE peers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server_id INTEGER NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    ip TEXT NOT NULL,
    public_key TEXT NOT NULL,
    private_key TEXT,
    preshared_key TEXT NOT NULL,
    allow_internet INTEGER NOT NULL DEFAULT 0,
    enabled INTEGER NOT NULL DEFAULT 1,
    disabled_reason TEXT NOT NULL DEFAULT '' CHECK (disabled_reason IN ('', 'admin', 'data_limit')),
    data_limit_gb INTEGER NOT NULL DEFAULT 0,
    usage_bytes INTEGER NOT NULL DEFAULT 0,
    expires_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (server_id, ip),
    UNIQUE (server_id, public_key)
  );
  CREATE INDEX peers_expires ON peers(expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE peer_access (
    peer_id INTEGER NOT NULL REFERENCES peers(id) ON DELETE CASCADE,
    target_id INTEGER NOT NULL REFERENCES peers(id) ON DELETE CASCADE,
    PRIMARY KEY (peer_id, target_id)
  ) WITHOUT ROWID;
  CREATE INDEX peer_access_target ON peer_access(target_id);
  CREATE TABLE webhooks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server_id INTEGER NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    url TEXT NOT NULL,
    is_enabled INTEGER NOT NULL,
    is_global INTEGER NOT NULL,
    verify_ssl INTEGER NOT NULL,
    subscribed_actions TEXT NOT NULL,
    template TEXT NOT NULL,
    default_payload TEXT NOT NULL,
    custom_body TEXT NOT NULL,
    custom_headers TEXT NOT NULL,
    secret TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE smtp_settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    enabled INTEGER NOT NULL,
    server TEXT NOT NULL,
    port INTEGER NOT NULL,
    use_auth INTEGER NOT NULL,
    use_tls INTEGER NOT NULL,
    username TEXT NOT NULL,
    password TEXT NOT NULL,
    from_email TEXT NOT NULL,
    from_name TEXT NOT NULL
  );
  CREATE TABLE credentials (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('apikey', 'token')),
    name TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    last_used_at TEXT
  );
  `,
  // Device API (issue 5): registration tokens, devices (each one a peer), port forwards.
  `
  CREATE TABLE registration_tokens (
    token TEXT PRIMARY KEY,
    server_id INTEGER NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    device_id TEXT
  ) WITHOUT ROWID;
  CREATE INDEX registration_tokens_server ON registration_tokens(server_id);
  CREATE TABLE devices (
    device_id TEXT PRIMARY KEY,
    server_id INTEGER NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    peer_id INTEGER NOT NULL UNIQUE REFERENCES peers(id) ON DELETE CASCADE,
    hwid TEXT NOT NULL,
    suspended INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL DEFAULT '',
    tunnel_up INTEGER,
    last_handshake TEXT,
    last_seen_at TEXT,
    last_source TEXT,
    provisioned_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (server_id, hwid)
  ) WITHOUT ROWID;
  CREATE TABLE port_forwards (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    device_id TEXT NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
    protocol TEXT NOT NULL CHECK (protocol IN ('tcp', 'udp')),
    listen_port INTEGER NOT NULL CHECK (listen_port BETWEEN 1 AND 65535),
    target_port INTEGER NOT NULL CHECK (target_port BETWEEN 1 AND 65535),
    created_at TEXT NOT NULL,
    UNIQUE (protocol, listen_port)
  );
  CREATE INDEX port_forwards_device ON port_forwards(device_id);
  `,
  // Events and usage (issue 4): the webhook outbox, its delivery log, the last seen
  // interface counters per peer, and small named job state (the current usage month).
  `
  CREATE TABLE webhook_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event TEXT NOT NULL,
    envelope TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX webhook_outbox_due ON webhook_outbox(next_attempt_at);
  CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    outbox_id INTEGER,
    event TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'retrying', 'failed', 'test')),
    http_status INTEGER,
    error TEXT NOT NULL DEFAULT '',
    duration_ms INTEGER NOT NULL,
    at TEXT NOT NULL
  );
  CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(webhook_id, id);
  CREATE TABLE usage_counters (
    peer_id INTEGER PRIMARY KEY REFERENCES peers(id) ON DELETE CASCADE,
    public_key TEXT NOT NULL,
    rx_bytes INTEGER NOT NULL,
    tx_bytes INTEGER NOT NULL,
    latest_handshake INTEGER NOT NULL DEFAULT 0,
    seen_at TEXT NOT NULL
  );
  CREATE TABLE job_state (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // Usage (issue 4): a version bumped by every change to which peers exist, their keys or
  // their enabled flag, so a usage cycle re-reads the peer list only when it changed.
  `
  INSERT INTO job_state (name, value) VALUES ('peersVersion', '0');
  CREATE TRIGGER peers_version_insert AFTER INSERT ON peers BEGIN
    UPDATE job_state SET value = CAST(value AS INTEGER) + 1 WHERE name = 'peersVersion';
  END;
  CREATE TRIGGER peers_version_delete AFTER DELETE ON peers BEGIN
    UPDATE job_state SET value = CAST(value AS INTEGER) + 1 WHERE name = 'peersVersion';
  END;
  CREATE TRIGGER peers_version_update AFTER UPDATE OF server_id, public_key, enabled ON peers BEGIN
    UPDATE job_state SET value = CAST(value AS INTEGER) + 1 WHERE name = 'peersVersion';
  END;
  `,
  // Safety (issue 11): why a peer is off becomes a set, so lifting one decision never lifts
  // another. A suspended device's peer was marked 'admin' before: it becomes 'suspended'.
  // The old single column stays (its CHECK forbids new values) and is no longer read.
  // Links made before wgcp marked its own links are adopted once, by name (linkOwnership).
  `
  ALTER TABLE peers ADD COLUMN disabled_reasons TEXT NOT NULL DEFAULT '';
  UPDATE peers SET disabled_reasons = CASE
    WHEN disabled_reason = 'admin' AND id IN (SELECT peer_id FROM devices WHERE suspended = 1) THEN 'suspended'
    WHEN disabled_reason IN ('admin', 'data_limit') THEN disabled_reason
    ELSE 'admin' END
  WHERE enabled = 0;
  UPDATE peers SET disabled_reason = '';
  INSERT INTO job_state (name, value) SELECT 'adoptUnmarkedLinks', '1' WHERE EXISTS (SELECT 1 FROM servers);
  `,
  // Dashboard (issue 17): sign-in sessions, stored by the SHA-256 of their cookie value. A
  // session dies with the key or token it was opened with (credential_id; NULL for the
  // WGCP_API_KEY of the environment, then key_hash must still match it).
  `
  CREATE TABLE sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    hash TEXT NOT NULL UNIQUE,
    credential_id INTEGER REFERENCES credentials(id) ON DELETE CASCADE,
    key_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX sessions_credential ON sessions(credential_id);
  `,
  // IPv6 (issue 12): a server's IPv6 tunnel prefix and a peer's /128. The router's 40-bit
  // RFC 4193 Global ID is made once here; existing servers and peers get their IPv6
  // addresses from it at the next open (src/store/ipv6-backfill.ts), flagged below.
  `
  ALTER TABLE servers ADD COLUMN address6 TEXT;
  ALTER TABLE peers ADD COLUMN ip6 TEXT;
  CREATE UNIQUE INDEX peers_ip6 ON peers(server_id, ip6) WHERE ip6 IS NOT NULL;
  INSERT INTO job_state (name, value) VALUES ('ulaGlobalId', lower(hex(randomblob(5))));
  INSERT INTO job_state (name, value) SELECT 'ipv6Backfill', '1' WHERE EXISTS (SELECT 1 FROM servers);
  `,
  // Scale (issue 15): a random token renewed by any change of a peer's addresses (insert,
  // delete, ip, ip6 or server moved), whoever writes it: the daemon's ranges of free
  // addresses (src/store/free-addresses.ts) hold while it is the one their own writes left.
  `
  INSERT INTO job_state (name, value) VALUES ('addressesVersion', lower(hex(randomblob(8))));
  CREATE TRIGGER peers_addresses_insert AFTER INSERT ON peers BEGIN
    UPDATE job_state SET value = lower(hex(randomblob(8))) WHERE name = 'addressesVersion';
  END;
  CREATE TRIGGER peers_addresses_delete AFTER DELETE ON peers BEGIN
    UPDATE job_state SET value = lower(hex(randomblob(8))) WHERE name = 'addressesVersion';
  END;
  CREATE TRIGGER peers_addresses_update AFTER UPDATE OF server_id, ip, ip6 ON peers
  WHEN OLD.server_id IS NOT NEW.server_id OR OLD.ip IS NOT NEW.ip OR OLD.ip6 IS NOT NEW.ip6 BEGIN
    UPDATE job_state SET value = lower(hex(randomblob(8))) WHERE name = 'addressesVersion';
  END;
  `,
  // Observability (issue 13): the traffic history, one table a tier (src/history/tiers.ts),
  // keyed (t, subject) so that writes land at each table's end and prunes at its start: a
  // subject is a peer id, or -(server id) for the server's sum. No foreign key: peer ids are
  // never reused (AUTOINCREMENT) and a deleted peer's rows age out with the rest. And counters
  // kept with the rows they count: webhook delivery attempts by outcome (GET /metrics).
  `
  CREATE TABLE traffic_5m (t INTEGER NOT NULL, subject INTEGER NOT NULL, rx_bytes INTEGER NOT NULL, tx_bytes INTEGER NOT NULL,
    PRIMARY KEY (t, subject)) WITHOUT ROWID;
  CREATE TABLE traffic_1h (t INTEGER NOT NULL, subject INTEGER NOT NULL, rx_bytes INTEGER NOT NULL, tx_bytes INTEGER NOT NULL,
    PRIMARY KEY (t, subject)) WITHOUT ROWID;
  CREATE TABLE traffic_1d (t INTEGER NOT NULL, subject INTEGER NOT NULL, rx_bytes INTEGER NOT NULL, tx_bytes INTEGER NOT NULL,
    PRIMARY KEY (t, subject)) WITHOUT ROWID;
  CREATE TABLE metric_counters (
    name TEXT NOT NULL,
    label TEXT NOT NULL,
    value INTEGER NOT NULL,
    PRIMARY KEY (name, label)
  ) WITHOUT ROWID;
  CREATE TRIGGER webhook_deliveries_counted AFTER INSERT ON webhook_deliveries BEGIN
    INSERT INTO metric_counters (name, label, value) VALUES ('webhook_deliveries', NEW.outcome, 1)
    ON CONFLICT (name, label) DO UPDATE SET value = value + 1;
  END;
  `,
  // Scale (issue 15): a server's peers in id order straight from an index. The list, a page
  // (`?limit=&offset=` by id) and the kernel's start-up read sorted every peer of the server
  // in a temporary B-tree: a page of 1,000 at 10,000 peers took 37 to 46 ms, now 10 to 13.
  `
  CREATE INDEX peers_server ON peers(server_id, id);
  `,
  // One way for every change (issue 23): mail notices wait in an outbox written in the
  // change's own transaction, as webhook deliveries do; sent in the background, retried.
  `
  CREATE TABLE mail_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    event TEXT NOT NULL,
    envelope TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX mail_outbox_due ON mail_outbox(next_attempt_at);
  `,
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
  // ---- Issue 28 (flash budget: narrow rows for what changes every minute) ----
  // A usage cycle rewrote every page of the wide peers table (the month's usage sat in each
  // row) and of usage_counters (a 44-character key and a text time in each row). Usage and
  // the last counters now share one narrow row a peer, written only for peers whose counters
  // moved: key_tag is the first 8 characters of the key the counters were read for (a
  // re-keyed peer's baseline no longer matches), NULL when there is no baseline. The old
  // usage_bytes column stays (zero, no longer read). Heartbeats' time seen and handshake
  // (the fields that change each beat) go to a narrow row keyed by the device id's 16 bytes;
  // the wide devices row is written only when a reported field changes.
  `
  CREATE TABLE peer_usage (
    peer_id INTEGER PRIMARY KEY REFERENCES peers(id) ON DELETE CASCADE,
    usage_bytes INTEGER NOT NULL DEFAULT 0,
    key_tag TEXT,
    rx_bytes INTEGER,
    tx_bytes INTEGER,
    latest_handshake INTEGER NOT NULL DEFAULT 0,
    -- A baseline is whole or absent.
    CHECK ((key_tag IS NULL) = (rx_bytes IS NULL) AND (key_tag IS NULL) = (tx_bytes IS NULL))
  );
  INSERT INTO peer_usage (peer_id, usage_bytes, key_tag, rx_bytes, tx_bytes, latest_handshake)
    SELECT p.id, p.usage_bytes, substr(c.public_key, 1, 8), c.rx_bytes, c.tx_bytes, COALESCE(c.latest_handshake, 0)
    FROM peers p LEFT JOIN usage_counters c ON c.peer_id = p.id
    WHERE p.usage_bytes <> 0 OR c.peer_id IS NOT NULL;
  UPDATE peers SET usage_bytes = 0 WHERE usage_bytes <> 0;
  DROP TABLE usage_counters;
  CREATE TABLE device_seen (
    id BLOB PRIMARY KEY,
    seen_ms INTEGER NOT NULL,
    handshake_ms INTEGER
  ) WITHOUT ROWID;
  INSERT INTO device_seen (id, seen_ms, handshake_ms)
    SELECT unhex(replace(device_id, '-', '')),
      CAST(strftime('%s', last_seen_at) AS INTEGER) * 1000 + CAST(substr(last_seen_at, 21, 3) AS INTEGER),
      CASE WHEN last_handshake IS NULL THEN NULL
        ELSE CAST(strftime('%s', last_handshake) AS INTEGER) * 1000 + CAST(substr(last_handshake, 21, 3) AS INTEGER) END
    FROM devices WHERE last_seen_at IS NOT NULL;
  CREATE TRIGGER device_seen_delete AFTER DELETE ON devices BEGIN
    DELETE FROM device_seen WHERE id = unhex(replace(old.device_id, '-', ''));
  END;
  `,
  // ---- end of issue 28 ----
  // ---- Each server's last kernel repair, kept across restarts ----
  // It was held in memory and went with the daemon; the server page then showed no repair
  // after a restart although the audit log had one.
  `
  CREATE TABLE kernel_repairs (
    server_id INTEGER PRIMARY KEY REFERENCES servers(id) ON DELETE CASCADE,
    at TEXT NOT NULL,
    repairs INTEGER NOT NULL,
    kinds TEXT NOT NULL DEFAULT '{}'
  );
  `,
];
