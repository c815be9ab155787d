// The lanAccess migration (issue 37) on a real SQLite file made by the schema before it: a
// peer with allowInternet had the router's networks and addresses with it, and keeps them as
// lanAccess "lan"; a peer without had none and gets none; nobody is reachable from outside.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MIGRATIONS } from '../src/store/migrations';
import { openDatabase } from '../src/store/db';
import { PeerTable } from '../src/store/peers';

const t = suite('store: the lanAccess migration');

t('an allowInternet peer keeps its reach into the LAN as lanAccess "lan"; others get none; reachableFrom is none for all', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-lan-mig-'));
  const before = MIGRATIONS.slice(0, MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN lan_access')));
  const old = openDatabase(dir, before);
  old.exec(`INSERT INTO servers (id, name, endpoint, mode, interface, address, listen_port, dns, private_key, public_key, created_at, updated_at)
    VALUES (1, 's', 'h:1', 'forward', 'wgcp1', '10.1.0.1/24', 51820, 'auto', 'k', 'k', 'x', 'x');
    INSERT INTO peers (id, server_id, ip, public_key, preshared_key, allow_internet, created_at, updated_at)
    VALUES (1, 1, '10.1.0.2', 'a', 'p', 1, 'x', 'x'), (2, 1, '10.1.0.3', 'b', 'p', 0, 'x', 'x');`);
  old.close();
  const db = openDatabase(dir);
  const peers = new PeerTable(db);
  assert.equal([1, 2].map((id) => [peers.get(id)!.lanAccess, peers.get(id)!.reachableFrom]), [['lan', []], [[], []]]);
  assert.equal(peers.kernelPeersOf(1).map((p) => p.lanAccess), ['lan', []]);
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

t.run();
