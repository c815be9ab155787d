// The client-options migration (issue 37) on a real SQLite file made by the schema before it:
// a server whose DNS was its own tunnel address (the old default) gets `auto`; a DNS the
// admin chose stays; peers keep every default (null) and servers the keepalive of 25.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MIGRATIONS } from '../src/store/migrations';
import { openDatabase } from '../src/store/db';
import { ServerTable } from '../src/store/servers';
import { PeerTable } from '../src/store/peers';

const t = suite('store: the client-options migration');

t('the old DNS default becomes auto, a chosen DNS stays, peers follow their server', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-client-mig-'));
  const before = MIGRATIONS.slice(0, MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN client_dns')));
  const old = openDatabase(dir, before);
  old.exec(`INSERT INTO servers (id, name, endpoint, mode, interface, address, listen_port, dns, private_key, public_key, created_at, updated_at)
    VALUES (1, 'old default', 'h:1', 'forward', 'wgcp1', '10.1.0.1/24', 51820, '10.1.0.1', 'k', 'k', 'x', 'x'),
           (2, 'chosen', 'h:2', 'forward', 'wgcp2', '10.2.0.1/24', 51821, '1.1.1.1', 'k', 'k', 'x', 'x');
    INSERT INTO peers (id, server_id, ip, public_key, preshared_key, created_at, updated_at) VALUES (1, 1, '10.1.0.2', 'a', 'p', 'x', 'x');`);
  old.close();
  const db = openDatabase(dir);
  const servers = new ServerTable(db);
  assert.equal(servers.list().map((s) => [s.dns, s.persistentKeepalive, s.clientAllowedIPs]), [['auto', 25, null], ['1.1.1.1', 25, null]]);
  const peer = new PeerTable(db).get(1)!;
  assert.equal([peer.dns, peer.clientAllowedIPs, peer.persistentKeepalive, peer.mtu], [null, null, null, null]);
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

t.run();
