// Migrations of issue 37's second half (a device's LAN in its heartbeat, site to site), after ha.ts.
export const SITE_MIGRATIONS: readonly string[] = [
  // ---- Heartbeats carry the agent's interval (seconds; NULL: not reported) ----
  `
  ALTER TABLE devices ADD COLUMN heartbeat_interval_s INTEGER;
  `,
  // ---- Site links: this router joined another as its peer (wgcp join), one interface each ----
  `
  CREATE TABLE site_links (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    interface TEXT NOT NULL UNIQUE,
    private_key TEXT NOT NULL,
    public_key TEXT NOT NULL,
    address TEXT NOT NULL,
    address6 TEXT,
    peer_public_key TEXT NOT NULL,
    preshared_key TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    routes TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  `,
  // ---- A site link's filter: what the other side may open connections to here ('lan', prefixes, or '' for none) ----
  `
  ALTER TABLE site_links ADD COLUMN reachable_from TEXT NOT NULL DEFAULT 'lan';
  `,
];
