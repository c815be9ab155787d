// Shared by the import suites: files as the other tools write them. wg-quick configs in its
// syntax; wg-easy's wg0.json as v14 saved it; a wg-easy v15 database made with the tables
// and columns of its published drizzle schema (written here from that schema, in WAL mode
// as wg-easy runs it).
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { generateKeyPair, type KeyPair } from '../src/wg/keys';

export const psk = (): string => crypto.randomBytes(32).toString('base64');

export interface EasyClient {
  name: string;
  address: string;
  address6?: string;
  keys: KeyPair;
  preSharedKey: string;
  enabled: boolean;
  expiresAt?: string | null;
  oneTimeLink?: string;
}

export function easyClients(n: number, subnet = '10.8.0'): EasyClient[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `client-${i + 1}`, address: `${subnet}.${i + 2}`, address6: `fdcc:ad94:bacf:61a4::cafe:${(i + 2).toString(16)}`,
    keys: generateKeyPair(), preSharedKey: psk(), enabled: true, expiresAt: null,
  }));
}

/** wg0.json as wg-easy v14 saves it (JSON.stringify of its config object, dates as ISO text). */
export function wgEasyJson(server: KeyPair, address: string, clients: EasyClient[]): string {
  const entries = clients.map((c) => {
    const id = crypto.randomUUID();
    return [id, {
      id, name: c.name, address: c.address, privateKey: c.keys.privateKey, publicKey: c.keys.publicKey, preSharedKey: c.preSharedKey,
      createdAt: '2024-03-01T10:00:00.000Z', updatedAt: '2024-03-02T10:00:00.000Z', expiredAt: c.expiresAt ?? null, enabled: c.enabled,
      ...(c.oneTimeLink ? { oneTimeLink: c.oneTimeLink, oneTimeLinkExpiresAt: '2024-03-02T10:05:00.000Z' } : {}),
    }];
  });
  return JSON.stringify({ server: { privateKey: server.privateKey, publicKey: server.publicKey, address }, clients: Object.fromEntries(entries) }, null, 2);
}

// The tables of wg-easy v15's drizzle schema (src/server/database/repositories/*/schema.ts).
const V15_TABLES = `
CREATE TABLE users_table (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, username TEXT NOT NULL UNIQUE, password TEXT, email TEXT UNIQUE,
  name TEXT NOT NULL, role INTEGER NOT NULL, totp_key TEXT, totp_verified INTEGER NOT NULL, enabled INTEGER NOT NULL,
  oauth_provider TEXT, oauth_id TEXT, created_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL, updated_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL);
CREATE TABLE interfaces_table (name TEXT PRIMARY KEY NOT NULL, device TEXT NOT NULL, port INTEGER NOT NULL UNIQUE, private_key TEXT NOT NULL,
  public_key TEXT NOT NULL, ipv4_cidr TEXT NOT NULL, ipv6_cidr TEXT NOT NULL, mtu INTEGER NOT NULL, routing_table TEXT NOT NULL DEFAULT 'auto',
  j_c INTEGER DEFAULT 7, j_min INTEGER DEFAULT 10, j_max INTEGER DEFAULT 1000, s1 INTEGER DEFAULT 128, s2 INTEGER DEFAULT 56, s3 INTEGER, s4 INTEGER,
  h1 TEXT, h2 TEXT, h3 TEXT, h4 TEXT, i1 TEXT, i2 TEXT, i3 TEXT, i4 TEXT, i5 TEXT, enabled INTEGER NOT NULL,
  firewall_enabled INTEGER DEFAULT false NOT NULL, created_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL, updated_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL);
CREATE TABLE hooks_table (id TEXT PRIMARY KEY NOT NULL REFERENCES interfaces_table(name) ON UPDATE CASCADE ON DELETE CASCADE,
  pre_up TEXT NOT NULL, post_up TEXT NOT NULL, pre_down TEXT NOT NULL, post_down TEXT NOT NULL,
  created_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL, updated_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL);
CREATE TABLE user_configs_table (id TEXT PRIMARY KEY NOT NULL REFERENCES interfaces_table(name) ON UPDATE CASCADE ON DELETE CASCADE,
  default_mtu INTEGER NOT NULL, default_persistent_keepalive INTEGER NOT NULL, default_dns TEXT NOT NULL, default_allowed_ips TEXT NOT NULL,
  default_j_c INTEGER DEFAULT 7, default_j_min INTEGER DEFAULT 10, default_j_max INTEGER DEFAULT 1000, default_i1 TEXT, default_i2 TEXT,
  default_i3 TEXT, default_i4 TEXT, default_i5 TEXT, host TEXT NOT NULL, port INTEGER NOT NULL,
  created_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL, updated_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL);
CREATE TABLE clients_table (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users_table(id) ON UPDATE CASCADE ON DELETE RESTRICT,
  interface_id TEXT NOT NULL REFERENCES interfaces_table(name) ON UPDATE CASCADE ON DELETE CASCADE,
  name TEXT NOT NULL, ipv4_address TEXT NOT NULL UNIQUE, ipv6_address TEXT NOT NULL UNIQUE,
  pre_up TEXT DEFAULT '' NOT NULL, post_up TEXT DEFAULT '' NOT NULL, pre_down TEXT DEFAULT '' NOT NULL, post_down TEXT DEFAULT '' NOT NULL,
  private_key TEXT NOT NULL, public_key TEXT NOT NULL, pre_shared_key TEXT NOT NULL, expires_at TEXT, allowed_ips TEXT,
  server_allowed_ips TEXT NOT NULL, firewall_ips TEXT, persistent_keepalive INTEGER NOT NULL, mtu INTEGER NOT NULL,
  j_c INTEGER, j_min INTEGER, j_max INTEGER, i1 TEXT, i2 TEXT, i3 TEXT, i4 TEXT, i5 TEXT, dns TEXT, server_endpoint TEXT,
  enabled INTEGER NOT NULL, created_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL, updated_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL);
CREATE UNIQUE INDEX public_key_interface_unique ON clients_table (public_key, interface_id);
CREATE TABLE one_time_links_table (id INTEGER PRIMARY KEY NOT NULL REFERENCES clients_table(id) ON UPDATE CASCADE ON DELETE CASCADE,
  one_time_link TEXT NOT NULL UNIQUE, expires_at TEXT NOT NULL,
  created_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL, updated_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL);
CREATE TABLE general_table (id INTEGER PRIMARY KEY DEFAULT 1 NOT NULL, setup_step INTEGER NOT NULL, session_password TEXT NOT NULL,
  session_timeout INTEGER NOT NULL, metrics_prometheus INTEGER NOT NULL, metrics_json INTEGER NOT NULL, metrics_password TEXT,
  created_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL, updated_at TEXT DEFAULT (CURRENT_TIMESTAMP) NOT NULL);
`;

export interface EasyDb {
  server: KeyPair;
  ipv4Cidr: string;
  ipv6Cidr: string;
  port: number;
  host: string;
  clientPort?: number;
  mtu?: number;
  clients: EasyClient[];
  /** Extra columns of one client by name (allowed_ips, server_allowed_ips, dns...). */
  extra?: Record<string, Record<string, unknown>>;
}

/** A wg-easy v15 database at `file`, filled the way wg-easy fills it at setup and as clients are added. */
export function makeWgEasyDb(file: string, e: EasyDb): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(V15_TABLES);
  db.prepare("INSERT INTO general_table (setup_step, session_password, session_timeout, metrics_prometheus, metrics_json) VALUES (0, 'x', 3600, 0, 0)").run();
  db.prepare("INSERT INTO users_table (username, password, name, role, totp_verified, enabled) VALUES ('admin', '$argon2id$hash', 'Admin', 1, 0, 1)").run();
  db.prepare(`INSERT INTO interfaces_table (name, device, port, private_key, public_key, ipv4_cidr, ipv6_cidr, mtu, enabled)
    VALUES ('wg0', 'eth0', ?, ?, ?, ?, ?, ?, 1)`).run(e.port, e.server.privateKey, e.server.publicKey, e.ipv4Cidr, e.ipv6Cidr, e.mtu ?? 1420);
  db.prepare(`INSERT INTO hooks_table (id, pre_up, post_up, pre_down, post_down) VALUES ('wg0', '',
    'iptables -t nat -A POSTROUTING -s {{ipv4Cidr}} -o {{device}} -j MASQUERADE;', '', 'iptables -t nat -D POSTROUTING -s {{ipv4Cidr}} -o {{device}} -j MASQUERADE;')`).run();
  db.prepare(`INSERT INTO user_configs_table (id, default_mtu, default_persistent_keepalive, default_dns, default_allowed_ips, host, port)
    VALUES ('wg0', 1420, 0, '["1.1.1.1","2606:4700:4700::1111"]', '["0.0.0.0/0","::/0"]', ?, ?)`).run(e.host, e.clientPort ?? e.port);
  const insert = db.prepare(`INSERT INTO clients_table (user_id, interface_id, name, ipv4_address, ipv6_address, private_key, public_key, pre_shared_key,
    expires_at, allowed_ips, server_allowed_ips, persistent_keepalive, mtu, dns, enabled)
    VALUES (1, 'wg0', @name, @ipv4, @ipv6, @priv, @pub, @psk, @expires, @allowed, @serverAllowed, 0, 1420, @dns, @enabled)`);
  for (const c of e.clients) {
    const extra = e.extra?.[c.name] ?? {};
    const { lastInsertRowid } = insert.run({
      name: c.name, ipv4: c.address, ipv6: c.address6, priv: c.keys.privateKey, pub: c.keys.publicKey, psk: c.preSharedKey,
      expires: c.expiresAt ?? null, allowed: extra.allowed_ips ?? null, serverAllowed: extra.server_allowed_ips ?? '[]', dns: extra.dns ?? null, enabled: c.enabled ? 1 : 0,
    });
    if (c.oneTimeLink) db.prepare('INSERT INTO one_time_links_table (id, one_time_link, expires_at) VALUES (?, ?, ?)').run(lastInsertRowid, c.oneTimeLink, '2030-01-01T00:00:00.000Z');
  }
  db.close();
}

/** A wg-quick server config, as an operator writes /etc/wireguard/wg0.conf. */
export function wgQuickServer(opts: { privateKey: string; address: string; listenPort: number; extra?: string[]; peers: { comment?: string; publicKey: string; presharedKey?: string; allowedIps: string }[] }): string {
  const lines = ['[Interface]', `PrivateKey = ${opts.privateKey}`, `Address = ${opts.address}`, `ListenPort = ${opts.listenPort}`, ...(opts.extra ?? [])];
  for (const p of opts.peers) {
    lines.push('');
    if (p.comment) lines.push(`# ${p.comment}`);
    lines.push('[Peer]', `PublicKey = ${p.publicKey}`);
    if (p.presharedKey) lines.push(`PresharedKey = ${p.presharedKey}`);
    lines.push(`AllowedIPs = ${p.allowedIps}`);
  }
  return lines.join('\n') + '\n';
}
