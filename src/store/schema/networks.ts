// Migrations of issue 37 (networks behind peers, the client's own options), after fleet.ts.
export const NETWORKS_MIGRATIONS: readonly string[] = [
  // ---- The client's own options: per server defaults, per peer overrides (NULL: the server's) ----
  // A server whose DNS was its own tunnel address (the old default) becomes `auto`: the same
  // address where a resolver answers there, and no DNS line where nothing does (the old line
  // broke every name lookup of a full-tunnel client on such a router).
  `
  ALTER TABLE servers ADD COLUMN client_allowed_ips TEXT;
  ALTER TABLE servers ADD COLUMN client_keepalive INTEGER NOT NULL DEFAULT 25;
  ALTER TABLE peers ADD COLUMN client_dns TEXT;
  ALTER TABLE peers ADD COLUMN client_allowed_ips TEXT;
  ALTER TABLE peers ADD COLUMN client_keepalive INTEGER;
  ALTER TABLE peers ADD COLUMN client_mtu INTEGER;
  UPDATE servers SET dns = 'auto' WHERE dns = substr(address, 1, instr(address, '/') - 1);
  `,
  // ---- Networks behind a peer: prefixes routed to it ('' none; "a, b" as networks) ----
  `
  ALTER TABLE peers ADD COLUMN networks TEXT NOT NULL DEFAULT '';
  `,
  // ---- Access between the router's networks and the peers (lanAccess, reachableFrom) ----
  // ('' none, 'lan' every network of the router, or "a, b" prefixes.) Inbound is denied
  // unless reachableFrom allows it, and allowInternet no longer opens the router's networks
  // and addresses: a peer that had allowInternet keeps that reach with lanAccess 'lan'.
  `
  ALTER TABLE peers ADD COLUMN lan_access TEXT NOT NULL DEFAULT '';
  ALTER TABLE peers ADD COLUMN reachable_from TEXT NOT NULL DEFAULT '';
  ALTER TABLE servers ADD COLUMN lan_access TEXT NOT NULL DEFAULT '';
  UPDATE peers SET lan_access = 'lan' WHERE allow_internet = 1;
  `,
];
