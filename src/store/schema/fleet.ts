// Schema migrations 14- (src/store/migrations.ts joins the files in order): a fleet on
// flash (issue 28) and the kernel kept true across restarts. New entries go at the end here.
export const FLEET_MIGRATIONS: readonly string[] = [
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
