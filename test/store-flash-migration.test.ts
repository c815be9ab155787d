// The flash-budget migration (issue 28) on a real SQLite file made by the schema before it:
// the month's usage, the last counters and the devices' time seen all carry over, so the
// first cycle after an upgrade counts only new traffic and no device looks silent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MIGRATIONS } from '../src/store/migrations';
import { openDatabase } from '../src/store/db';
import { UsageTable } from '../src/store/usage';
import { DeviceTable } from '../src/store/devices';
import { counterDelta } from '../src/jobs/usage-delta';

const t = suite('store: the flash-budget migration');
const KEY = 'aGVsbG8gd29ybGQgdGhpcyBpcyBhIGtleSAxMjM0NTY=';
const DEVICE = '0b8e6c1e-3f7a-4d2b-9c4e-5a6b7c8d9e0f';

t('carries usage, baselines and the time seen over; a cycle after it counts only the new bytes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-flash-mig-'));
  const before = MIGRATIONS.slice(0, MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE peer_usage')));
  const old = openDatabase(dir, before);
  old.exec(`INSERT INTO servers (id, name, endpoint, mode, interface, address, listen_port, dns, private_key, public_key, created_at, updated_at)
    VALUES (1, 's', 'h:1', 'forward', 'wgcp1', '10.1.0.1/24', 51820, '10.1.0.1', 'k', 'k', 'x', 'x');
    INSERT INTO peers (id, server_id, ip, public_key, preshared_key, usage_bytes, created_at, updated_at) VALUES (1, 1, '10.1.0.2', '${KEY}', 'p', 5000, 'x', 'x');
    INSERT INTO peers (id, server_id, ip, public_key, preshared_key, usage_bytes, created_at, updated_at) VALUES (2, 1, '10.1.0.3', 'other', 'p', 0, 'x', 'x');
    INSERT INTO usage_counters (peer_id, public_key, rx_bytes, tx_bytes, latest_handshake, seen_at) VALUES (1, '${KEY}', 700, 300, 1700000000, 'x');
    INSERT INTO devices (device_id, server_id, peer_id, hwid, last_seen_at, last_handshake, provisioned_at, created_at, updated_at)
      VALUES ('${DEVICE}', 1, 1, 'hw', '2026-11-25T01:02:03.456Z', '2026-11-25T01:00:00.000Z', 'x', 'x', 'x');`);
  old.close();

  const db = openDatabase(dir);
  const usage = new UsageTable(db);
  const rows = usage.snapshot();
  assert.equal(rows.map((r) => [r.id, r.usageBytes, r.latestHandshake]), [[1, 5000, 1700000000], [2, 0, 0]]);
  const [p1, p2] = usage.cyclePeers();
  assert.equal(p1.baseline, { publicKey: KEY, rxBytes: 700, txBytes: 300, latestHandshake: 1700000000 });
  assert.is(p2.baseline, null);
  assert.is(counterDelta(p1.baseline, KEY, { rxBytes: 750, txBytes: 310, latestHandshake: 1700000100 }), 60, 'only the bytes since the last cycle');
  assert.is(db.prepare('SELECT SUM(usage_bytes) FROM peers').pluck().get(), 0, 'the old column is zero, no longer read');
  const device = new DeviceTable(db).get(DEVICE)!;
  assert.is(device.lastSeenAt, '2026-11-25T01:02:03.456Z');
  assert.is(device.lastHandshake, '2026-11-25T01:00:00.000Z');
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

t.run();
