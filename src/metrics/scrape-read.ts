// What a scrape reads from the store: every peer with the counters the usage job last read
// from its interface (a page of peers at a time, by id, with a turn of the event loop between
// pages, so that 10,000 peers never hold the API for long), the servers, devices by status,
// the webhook outbox's length and the delivery counts kept by a database trigger
// (src/store/migrations.ts). A peer added or deleted between two pages is simply seen or not.
import type { Statement } from 'better-sqlite3';
import type { DB } from '../store/db';

export interface ScrapedPeer {
  id: number;
  serverId: number;
  name: string;
  enabled: boolean;
  dataLimitGB: number;
  /** Bandwidth limits in Mbit/s, null for none. */
  downloadLimitMbps: number | null;
  uploadLimitMbps: number | null;
  /** Bytes the router received from / sent to the peer, as last read; null before the first read. */
  rxBytes: number | null;
  txBytes: number | null;
  /** Unix seconds; 0 when the peer never shook hands. */
  latestHandshake: number;
}

export interface StoreSnapshot {
  peers: ScrapedPeer[];
  serverIds: number[];
  devicesByStatus: [string, number][];
  outboxPending: number;
  webhookDeliveries: [string, number][];
}

const PAGE = 2000;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

// A cache of per-object data, not a service: each database's prepared statements, made once.
const statements = new WeakMap<DB, Record<'peers' | 'servers' | 'devices' | 'outbox' | 'deliveries', Statement<unknown[]>>>();

function prepared(db: DB) {
  let s = statements.get(db);
  if (!s) {
    s = {
      // Counters belong to the key they were read for: a re-keyed peer shows none until the next cycle.
      peers: db.prepare(`SELECT p.id, p.server_id, p.name, p.enabled, p.data_limit_gb, c.rx_bytes, c.tx_bytes, c.latest_handshake,
        p.download_limit_mbps, p.upload_limit_mbps
        FROM peers p LEFT JOIN peer_usage c ON c.peer_id = p.id AND c.key_tag = substr(p.public_key, 1, 8)
        WHERE p.id > ? ORDER BY p.id LIMIT ${PAGE}`).raw(),
      servers: db.prepare('SELECT id FROM servers ORDER BY id').pluck(),
      // A suspended device counts as suspended whatever it last reported; a device that never said: unknown.
      devices: db.prepare(`SELECT CASE WHEN suspended = 1 THEN 'suspended' WHEN status = '' THEN 'unknown' ELSE status END AS s, COUNT(*)
        FROM devices GROUP BY s ORDER BY s`).raw(),
      outbox: db.prepare('SELECT COUNT(*) FROM webhook_outbox').pluck(),
      deliveries: db.prepare(`SELECT label, value FROM metric_counters WHERE name = 'webhook_deliveries' ORDER BY label`).raw(),
    };
    statements.set(db, s);
  }
  return s;
}

type RawPeer = [number, number, string, number, number, number | null, number | null, number | null, number | null, number | null];

export async function readStoreSnapshot(db: DB): Promise<StoreSnapshot> {
  const s = prepared(db);
  const peers: ScrapedPeer[] = [];
  for (let after = 0; ;) {
    const page = s.peers.all(after) as RawPeer[];
    for (const [id, serverId, name, enabled, dataLimitGB, rx, tx, hs, down, up] of page) {
      peers.push({ id, serverId, name, enabled: enabled === 1, dataLimitGB, rxBytes: rx, txBytes: tx, latestHandshake: hs ?? 0, downloadLimitMbps: down, uploadLimitMbps: up });
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1][0];
    await turn();
  }
  return {
    peers,
    serverIds: s.servers.all() as number[],
    devicesByStatus: s.devices.all() as [string, number][],
    outboxPending: s.outbox.get() as number,
    webhookDeliveries: s.deliveries.all() as [string, number][],
  };
}
