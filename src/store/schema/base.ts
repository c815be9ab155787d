// Schema migrations 0-3 (src/store/migrations.ts joins the files in order): the first
// schema, and what the contracts added to it: the device API (issue 5), events, usage and
// job state (issue 4). Never edit a shipped entry.
export const BASE_MIGRATIONS: readonly string[] = [
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
];
