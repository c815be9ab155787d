// Imports through POST /api/import and `wgcp import`, against a real daemon and its SQLite
// file: a dry run creates nothing, an import creates the server and every peer with the keys
// they had, and a conflict refuses the whole import.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPair } from '../src/wg/keys';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { easyClients, makeWgEasyDb, psk, wgEasyJson, wgQuickServer } from './import-support';

const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const t = suite('import: POST /api/import and wgcp import on a real database');

let d: TestDaemon;
let api: ReturnType<typeof client>;
const server = generateKeyPair();
const peers = [generateKeyPair(), generateKeyPair(), generateKeyPair()];
const psks = [psk(), psk(), psk()];
const conf = wgQuickServer({
  privateKey: server.privateKey, address: '10.71.0.1/24, fd71::1/64', listenPort: 47101,
  peers: peers.map((p, i) => ({ comment: `host-${i}`, publicKey: p.publicKey, presharedKey: psks[i], allowedIps: `10.71.0.${i + 2}/32, fd71::${i + 2}/128` })),
});

const counts = async () => {
  const servers = (await api.get('/api/servers')).json as { peers: unknown[] }[];
  return { servers: servers.length, peers: servers.reduce((n, s) => n + s.peers.length, 0) };
};

t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
  const other = await api.post('/api/servers', { name: 'existing', endpoint: 'vpn.example.com:47100', mode: 'forward', address: '10.70.0.1/24', interface: 'wgexist0' });
  assert.is(other.status, 201, other.text);
});
t.after(async () => { await d.stop(); });

t('a dry run answers the plan without secrets and creates nothing', async () => {
  const before = await counts();
  const res = await api.post('/api/import', { source: 'wg-quick', file: conf, fileName: 'wg0.conf', endpoint: 'vpn.example.com:47101', dryRun: true });
  assert.is(res.status, 200, res.text);
  assert.is(res.json.dryRun, true);
  assert.is(res.json.plan.server.name, 'wg0');
  assert.equal(res.json.plan.peers.map((p: { name: string; ip: string; ip6: string }) => [p.name, p.ip, p.ip6]), [['host-0', '10.71.0.2', 'fd71::2'], ['host-1', '10.71.0.3', 'fd71::3'], ['host-2', '10.71.0.4', 'fd71::4']]);
  assert.not.ok(res.text.includes(server.privateKey) || psks.some((k) => res.text.includes(k)));
  assert.equal(await counts(), before);
});

t('an import creates the server with its own key and every peer with its public and preshared key, hasPrivateKey false', async () => {
  const res = await api.post('/api/import', { source: 'wg-quick', file: conf, fileName: 'wg0.conf', endpoint: 'vpn.example.com:47101' });
  assert.is(res.status, 201, res.text);
  const s = res.json.server;
  assert.equal([s.name, s.address, s.address6, s.listenPort, s.publicKey, s.interface], ['wg0', '10.71.0.1/24', 'fd71::1/64', 47101, server.publicKey, `wgcp${s.id}`]);
  assert.equal(s.peers.map((p: { publicKey: string; ip: string; ip6: string; hasPrivateKey: boolean; name: string }) => [p.name, p.publicKey, p.ip, p.ip6, p.hasPrivateKey]),
    peers.map((p, i) => [`host-${i}`, p.publicKey, `10.71.0.${i + 2}`, `fd71::${i + 2}`, false]));
  // An import sets no access schedule: none of the sources has one.
  assert.equal(s.peers.map((p: { schedule: unknown }) => p.schedule), [null, null, null]);
  // The preshared keys are in the database as the file had them (the API never shows them).
  const Database = require('better-sqlite3');
  const db = new Database(path.join(d.dataDir, 'wgcp.db'), { readonly: true });
  const stored = db.prepare('SELECT preshared_key FROM peers WHERE server_id = ? ORDER BY id').pluck().all(s.id);
  const key = db.prepare('SELECT private_key FROM servers WHERE id = ?').pluck().get(s.id);
  db.close();
  assert.equal(stored, psks);
  assert.is(key, server.privateKey);
  const config = await api.get(`/api/peers/${s.peers[0].id}/config`);
  assert.is(config.status, 404, 'no private key is stored for a wg-quick peer');
});

t('the same file again is refused whole: 400 naming the field, nothing half-imported', async () => {
  const before = await counts();
  const again = await api.post('/api/import', { source: 'wg-quick', file: conf, endpoint: 'vpn.example.com:47101' });
  assert.is(again.status, 400, again.text);
  assert.is(again.json.field, 'listenPort');
  const otherPort = await api.post('/api/import', { source: 'wg-quick', file: conf.replace('ListenPort = 47101', 'ListenPort = 47102'), endpoint: 'vpn.example.com:47102' });
  assert.is(otherPort.status, 400, otherPort.text);
  assert.equal([otherPort.json.field, /overlaps the subnet/.test(otherPort.json.error)], ['address', true]);
  assert.equal(await counts(), before);
});

t('subnet, interface and key conflicts with existing servers are refused, each naming its field', async () => {
  const before = await counts();
  const fresh = generateKeyPair();
  const body = (text: string, extra: Record<string, unknown> = {}) => ({ source: 'wg-quick', file: text, endpoint: 'vpn.example.com:47105', ...extra });
  const base = (addr: string, peerKey: string) => wgQuickServer({ privateKey: fresh.privateKey, address: addr, listenPort: 47105, peers: [{ publicKey: peerKey, allowedIps: `${addr.replace(/\.1\/24$/, '.9')}/32` }] });
  const subnet = await api.post('/api/import', body(base('10.70.0.1/24', generateKeyPair().publicKey)));
  assert.equal([subnet.status, subnet.json.field], [400, 'address'], subnet.text);
  const iface = await api.post('/api/import', body(base('10.72.0.1/24', generateKeyPair().publicKey), { interface: 'wgexist0' }));
  assert.equal([iface.status, iface.json.field], [400, 'interface'], iface.text);
  const peerKey = await api.post('/api/import', body(base('10.72.0.1/24', peers[1].publicKey)));
  assert.equal([peerKey.status, peerKey.json.field], [400, 'file'], peerKey.text);
  assert.match(peerKey.json.error, /already peer \d+'s on server \d+/);
  const serverKey = await api.post('/api/import', body(wgQuickServer({ privateKey: server.privateKey, address: '10.73.0.1/24', listenPort: 47105, peers: [] })));
  assert.equal([serverKey.status, serverKey.json.field], [400, 'file'], serverKey.text);
  assert.match(serverKey.json.error, /already the key of server \d+ \("wg0"\)/);
  assert.equal(await counts(), before);
});

t('bad bodies are 400 naming the field', async () => {
  assert.equal((await api.post('/api/import', { file: conf })).json.field, 'source');
  assert.equal((await api.post('/api/import', { source: 'wg-quick' })).json.field, 'file');
  assert.equal((await api.post('/api/import', { source: 'wg-quick', file: conf, fileBase64: 'AA==' })).json.field, 'file');
  assert.equal((await api.post('/api/import', { source: 'wg-easy', fileBase64: '***' })).json.field, 'fileBase64');
  assert.equal((await api.post('/api/import', { source: 'wg-quick', file: '[Interface]\n' })).json.field, 'file');
  assert.equal((await api.post('/api/import', { source: 'wg-quick', file: conf, mode: 'bridge' })).json.field, 'mode');
});

t('wg-easy v14 and a v15 database import with every client; wg-easy kept their private keys, so their configs are served', async () => {
  const v14Clients = easyClients(4, '10.74.0');
  const v14 = await api.post('/api/import', { source: 'wg-easy', file: wgEasyJson(generateKeyPair(), '10.74.0.1', v14Clients), endpoint: 'vpn.example.com:47106', name: 'old wg-easy' });
  assert.is(v14.status, 201, v14.text);
  assert.equal(v14.json.server.peers.map((p: { name: string; ip: string; publicKey: string; hasPrivateKey: boolean }) => [p.name, p.ip, p.publicKey, p.hasPrivateKey]),
    v14Clients.map((c) => [c.name, c.address, c.keys.publicKey, true]));
  const file = path.join(tempDir('wgcp-import-'), 'wg-easy.db');
  const v15Clients = easyClients(5, '10.75.0').map((c, i) => ({ ...c, address6: `fd75::${i + 2}` }));
  makeWgEasyDb(file, { server: generateKeyPair(), ipv4Cidr: '10.75.0.0/24', ipv6Cidr: 'fd75::/64', port: 47107, host: 'vpn.example.net', clients: v15Clients });
  const v15 = await api.post('/api/import', { source: 'wg-easy', fileBase64: fs.readFileSync(file).toString('base64') });
  assert.is(v15.status, 201, v15.text);
  const s = v15.json.server;
  assert.equal([s.address, s.address6, s.endpoint, s.listenPort], ['10.75.0.1/24', 'fd75::1/64', 'vpn.example.net:47107', 47107]);
  assert.equal(s.peers.map((p: { name: string; ip: string; ip6: string; publicKey: string }) => [p.name, p.ip, p.ip6, p.publicKey]),
    v15Clients.map((c) => [c.name, c.address, c.address6, c.keys.publicKey]));
  const cfg = await api.get(`/api/peers/${s.peers[0].id}/config`);
  assert.is(cfg.status, 200, cfg.text);
  assert.match(cfg.text, new RegExp(`PrivateKey = ${v15Clients[0].keys.privateKey.replace(/[+/]/g, '\\$&')}`));
  assert.match(cfg.text, new RegExp(`PresharedKey = ${v15Clients[0].preSharedKey.replace(/[+/]/g, '\\$&')}`));
});

t('wgcp import prints the plan; --dry-run stops there; a conflict exits 2 with the reason and imports nothing', async () => {
  const dir = tempDir('wgcp-import-cli-');
  const dataDir = path.join(dir, 'data');
  const file = path.join(dir, 'wg9.conf');
  const key = generateKeyPair();
  fs.writeFileSync(file, wgQuickServer({ privateKey: key.privateKey, address: '10.76.0.1/24', listenPort: 47108, peers: [{ comment: 'laptop', publicKey: generateKeyPair().publicKey, allowedIps: '10.76.0.2/32' }] }));
  const cli = (...args: string[]) => run(process.execPath, [CLI, '--data-dir', dataDir, 'import', ...args]).then((r) => ({ code: 0, ...r }), (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }));
  const dry = await cli('wg-quick', file, '--dry-run', '--endpoint', 'vpn.example.com:47108');
  assert.is(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /server "wg9": interface wgcp<id>, 10\.76\.0\.1\/24, listens on 47108\/udp/);
  assert.match(dry.stdout, /laptop: 10\.76\.0\.2/);
  assert.match(dry.stdout, /dry run: nothing was changed/);
  const Database = require('better-sqlite3');
  const serversIn = () => { const db = new Database(path.join(dataDir, 'wgcp.db'), { readonly: true }); const n = db.prepare('SELECT COUNT(*) FROM servers').pluck().get(); db.close(); return n; };
  assert.is(serversIn(), 0);
  const real = await cli('wg-quick', file, '--endpoint', 'vpn.example.com:47108', '--name', 'branch');
  assert.is(real.code, 0, real.stderr);
  assert.match(real.stdout, /imported: server 1 "branch" \(interface wgcp1\) with 1 peers/);
  assert.match(real.stdout, /wgcpd is not running: its next start brings the server up/);
  const again = await cli('wg-quick', file, '--endpoint', 'vpn.example.com:47108');
  assert.is(again.code, 2);
  assert.match(again.stderr, /wgcp import: refused: listenPort 47108 is already used by server 1/);
  assert.is(serversIn(), 1);
  const usage = await cli('openvpn', file);
  assert.is(usage.code, 2);
  assert.match(usage.stderr, /usage: wgcp import wg-quick FILE/);
});

t.run();
