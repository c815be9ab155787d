// Schema migrations 4-10 (src/store/migrations.ts joins the files in order): a router's
// needs: safety (issue 11), dashboard sessions (17), IPv6 (12), scale (15), the traffic
// history (13) and the change runner's mail outbox (23). Never edit a shipped entry.
export const ROUTER_MIGRATIONS: readonly string[] = [
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
];
