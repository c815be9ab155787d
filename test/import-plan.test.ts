// What an import plans from each source, before anything is stored: the server and every
// peer with the keys they already have, and, in words, what cannot be carried over.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_PRESHARED_KEY, checkPlan } from '../src/import/plan';
import { planText, planView } from '../src/import/plan-text';
import { planFromBytes, planFromFile } from '../src/import/source';
import { planWgQuick } from '../src/import/wg-quick-plan';
import { generateKeyPair } from '../src/wg/keys';
import { tempDir } from './helpers/daemon';
import { easyClients, makeWgEasyDb, psk, wgEasyJson, wgQuickServer } from './import-support';

const t = suite('import: the plan of a wg-quick config and of wg-easy v14 and v15');
const NOW = new Date('2026-06-01T00:00:00.000Z');
const server = generateKeyPair();
const [alice, bob, carol] = [generateKeyPair(), generateKeyPair(), generateKeyPair()];
const alicePsk = psk();

const dualStack = wgQuickServer({
  privateKey: server.privateKey, address: '10.61.0.1/24, fd61::1/64', listenPort: 51961,
  extra: ['DNS = 10.61.0.1, 2001:db8::53, corp.lan', 'MTU = 1400', 'PostUp = nft add rule inet nat postrouting oifname eth0 masquerade', 'PreDown = echo bye', 'Table = off'],
  peers: [
    { comment: 'alice', publicKey: alice.publicKey, presharedKey: alicePsk, allowedIps: '10.61.0.2/32, fd61::2/128' },
    { comment: 'Client: bob (4b1c)', publicKey: bob.publicKey, allowedIps: '10.61.0.3/32, 192.168.7.0/24' },
    { publicKey: carol.publicKey, allowedIps: '172.20.0.0/16' },
  ],
});

t('a wg-quick server becomes one server with its private key, both addresses, port, DNS and MTU', () => {
  const plan = planWgQuick(dualStack, '/etc/wireguard/wg0.conf', { endpoint: 'vpn.example.com:51961' });
  assert.equal({ ...plan.server }, {
    name: 'wg0', endpoint: 'vpn.example.com:51961', mode: 'forward', interface: null, address: '10.61.0.1/24', address6: 'fd61::1/64',
    listenPort: 51961, dns: '10.61.0.1, 2001:db8::53', mtu: 1400, privateKey: server.privateKey, publicKey: server.publicKey,
  });
});

t('each [Peer] keeps its public and preshared keys and the addresses its AllowedIPs give it; no private key is known', () => {
  const plan = planWgQuick(dualStack, 'wg0.conf', { endpoint: 'vpn.example.com:51961' });
  assert.equal(plan.peers.map((p) => [p.name, p.ip, p.ip6, p.publicKey, p.presharedKey, p.privateKey]), [
    ['alice', '10.61.0.2', 'fd61::2', alice.publicKey, alicePsk, null],
    // No PresharedKey line: the all-zero key, which WireGuard treats as none, so bob's config keeps working.
    ['bob', '10.61.0.3', 'fd61::3', bob.publicKey, NO_PRESHARED_KEY, null],
  ]);
  assert.ok(plan.peers.every((p) => p.allowInternet), 'the PostUp masqueraded: internet access is kept');
});

t('hooks are reported and not run; routed subnets, search domains and unaddressable peers are said not carried over', () => {
  const plan = planWgQuick(dualStack, 'wg0.conf', { endpoint: 'vpn.example.com:51961' });
  const said = plan.notCarried.join('\n');
  assert.match(said, /PostUp = nft add rule inet nat postrouting oifname eth0 masquerade \(line \d+\): reported, not run/);
  assert.match(said, /PreDown = echo bye/);
  assert.match(said, /Table = off/);
  assert.match(said, /corp\.lan/);
  assert.match(said, /peer "bob": AllowedIPs 192\.168\.7\.0\/24/);
  assert.match(said, new RegExp(`key ${carol.publicKey.replace(/[+/]/g, '\\$&')}\\): no /32 address inside 10\\.61\\.0\\.1/24.*left out`));
  assert.match(plan.notes.join('\n'), /peer "bob" had no IPv6 address: it gets fd61::3/);
  const text = planText(plan);
  assert.ok(text.includes('peers: 2') && text.includes('not carried over:'), text);
  assert.not.ok(text.includes(server.privateKey) || text.includes(alicePsk), 'the printed plan shows no secret');
  assert.not.ok(JSON.stringify(planView(plan)).includes(server.privateKey) || JSON.stringify(planView(plan)).includes(alicePsk), 'nor does the API view');
});

t('names come from the comments tools write: "# name", "# Client: name (id)", "# Name = name" inside the section', () => {
  const text = `[Interface]\nPrivateKey = ${server.privateKey}\nAddress = 10.62.0.1/24\nListenPort = 51962\n\n[Peer]\n# Name = dave\nPublicKey = ${alice.publicKey}\nAllowedIPs = 10.62.0.9/32\n`;
  const plan = planWgQuick(text, 'site.conf', {});
  assert.is(plan.peers[0].name, 'dave');
  assert.is(plan.server.name, 'site');
  assert.match(plan.notes.join('\n'), /endpoint new peers' configs name is set to .*:51962; give --endpoint/);
});

t('a file that is no usable wg-quick config is refused with the line and the reason', () => {
  const refused = (text: string, why: RegExp) => assert.throws(() => planWgQuick(text, 'x.conf', {}), (e: Error & { status?: number; field?: string }) => e.status === 400 && e.field === 'file' && why.test(e.message));
  refused('hello\n', /line 1: .*before any \[Interface\]|not a "Key = Value" line/);
  refused('[Peer]\nPublicKey = x\n', /no \[Interface\]/);
  refused(`[Interface]\nAddress = 10.1.0.1/24\nListenPort = 1\n`, /private key is missing/);
  refused(`[Interface]\nPrivateKey = ${server.privateKey}\nAddress = fd00::1/64\nListenPort = 5\n`, /no IPv4 Address/);
  refused(`[Interface]\nPrivateKey = ${server.privateKey}\nAddress = 10.1.0.1/24\n`, /no ListenPort/);
  refused(`[Interface]\nPrivateKey = ${server.privateKey}\nAddress = 10.1.0.1/24\nListenPort = 5\n[Wat]\n`, /line 5: unknown section/);
  refused(`[Interface]\nPrivateKey = ${server.privateKey}\nAddress = 10.1.0.1/24\nListenPort = 5\n[Peer]\nPublicKey = ${alice.publicKey}\nAllowedIPs = 10.1.0.2/32\n[Peer]\nPublicKey = ${alice.publicKey}\nAllowedIPs = 10.1.0.3/32\n`, /used twice/);
  refused(`[Interface]\nPrivateKey = ${server.privateKey}\nAddress = 10.1.0.1/24\nListenPort = 5\n[Peer]\nPublicKey = ${alice.publicKey}\nAllowedIPs = 10.1.0.2/32\n[Peer]\nPublicKey = ${bob.publicKey}\nAllowedIPs = 10.1.0.2/32\n`, /10\.1\.0\.2 is taken twice/);
  refused(`[Interface]\nPrivateKey = ${server.privateKey}\nAddress = 10.1.0.1/24\nListenPort = 5\n[Peer]\nPublicKey = not-a-key\nAllowedIPs = 10.1.0.2/32\n`, /not a WireGuard key/);
});

t('wg-easy v14: every client of wg0.json with its name, address, keys and enabled flag; private keys are kept', () => {
  const clients = easyClients(5);
  clients[1].enabled = false;
  const plan = planFromBytes('wg-easy', Buffer.from(wgEasyJson(server, '10.8.0.1', clients)), null, { endpoint: 'vpn.example.com:51820' }, NOW);
  assert.is(plan.source, 'wg-easy v14 (wg0.json)');
  assert.equal([plan.server.address, plan.server.address6, plan.server.listenPort, plan.server.publicKey], ['10.8.0.1/24', null, 51820, server.publicKey]);
  assert.equal(plan.peers.map((p) => [p.name, p.ip, p.publicKey, p.privateKey, p.presharedKey, p.enabled, p.createdAt]),
    clients.map((c) => [c.name, c.address, c.keys.publicKey, c.keys.privateKey, c.preSharedKey, c.enabled, '2024-03-01T10:00:00.000Z']));
  assert.match(plan.notes.join('\n'), /WG_PORT|WG_DEFAULT_DNS/);
});

t('wg-easy v14: an expiry to come is kept, an expired client comes in disabled without one; one-time links are dropped and said so', () => {
  const clients = easyClients(3);
  clients[0].expiresAt = '2027-01-01T23:59:59.000Z';
  clients[1].expiresAt = '2025-01-01T23:59:59.000Z';
  clients[2].oneTimeLink = 'a1b2c3';
  const plan = planFromBytes('wg-easy', Buffer.from(wgEasyJson(server, '10.8.0.1', clients)), null, {}, NOW);
  assert.equal(plan.peers.map((p) => [p.enabled, p.expiresAt]), [[true, '2027-01-01T23:59:59.000Z'], [false, null], [true, null]]);
  assert.match(plan.notes.join('\n'), /client "client-2" expired at 2025-01-01T23:59:59\.000Z: it comes in disabled/);
  assert.match(plan.notCarried.join('\n'), /client "client-3": its one-time link is dropped/);
});

t('wg-easy v15: the database read as its schema defines it: interface, user config, every client with both addresses', () => {
  const dir = tempDir('wgcp-import-');
  const file = path.join(dir, 'wg-easy.db');
  const clients = easyClients(6);
  clients[2].enabled = false;
  clients[3].oneTimeLink = 'ffee01';
  makeWgEasyDb(file, { server, ipv4Cidr: '10.8.0.0/24', ipv6Cidr: 'fdcc:ad94:bacf:61a4::cafe:0/112', port: 51820, host: 'vpn.example.org', clientPort: 443, clients,
    extra: { 'client-5': { server_allowed_ips: '["192.168.9.0/24"]', dns: '["9.9.9.9"]' }, 'client-6': { allowed_ips: '["10.8.0.0/24"]' } } });
  const plan = planFromFile('wg-easy', file, {}, NOW);
  assert.is(plan.source, 'wg-easy v15 (database)');
  assert.equal({ ...plan.server }, {
    name: 'wg-easy', endpoint: 'vpn.example.org:443', mode: 'forward', interface: null, address: '10.8.0.1/24', address6: 'fdcc:ad94:bacf:61a4::cafe:1/112',
    listenPort: 51820, dns: '1.1.1.1, 2606:4700:4700::1111', mtu: 1420, privateKey: server.privateKey, publicKey: server.publicKey,
  });
  assert.equal(plan.peers.map((p) => [p.name, p.ip, p.ip6, p.publicKey, p.privateKey, p.presharedKey, p.enabled, p.allowInternet]),
    clients.map((c, i) => [c.name, c.address, c.address6, c.keys.publicKey, c.keys.privateKey, c.preSharedKey, c.enabled, i !== 5]));
  const said = plan.notCarried.join('\n');
  assert.match(said, /1 one-time link\(s\) are dropped/);
  assert.match(said, /1 wg-easy user account\(s\)/);
  assert.match(said, /post_up hook is reported, not run/);
  assert.match(said, /client "client-5": server_allowed_ips 192\.168\.9\.0\/24/);
  assert.match(said, /client "client-5": its own DNS 9\.9\.9\.9/);
  // The same database sent as bytes (the API's way), WAL header and all, reads the same.
  const viaBytes = planFromBytes('wg-easy', fs.readFileSync(file), null, {}, NOW);
  assert.equal(viaBytes.peers, plan.peers);
});

t('a file that is not what its source says is refused: another database, JSON without server and clients', () => {
  const dir = tempDir('wgcp-import-');
  const other = path.join(dir, 'other.db');
  const Database = require('better-sqlite3');
  const db = new Database(other);
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
  db.close();
  assert.throws(() => planFromFile('wg-easy', other, {}, NOW), /not a wg-easy v15 database/);
  assert.throws(() => planFromBytes('wg-easy', Buffer.from('{"clients": {}}'), null, {}, NOW), /needs "server" and "clients"/);
  assert.throws(() => planFromBytes('wg-easy', Buffer.from('not json'), null, {}, NOW), /is not JSON/);
  assert.throws(() => planFromFile('wg-quick', other, {}, NOW), /is a SQLite database, not a wg-quick config/);
  assert.throws(() => planFromBytes('wg-quick', Buffer.from(dualStack), null, { endpoint: 'no port' }, NOW), /endpoint must be host:port/);
});

t('every plan, whatever its source, keeps the rule of each server and peer value that the API keeps, before anything is made', () => {
  const plan = planWgQuick(dualStack, 'wg0.conf', { endpoint: 'vpn.example.com:51820' });
  const refused = (change: (p: typeof plan) => void, why: RegExp) => {
    const copy = { ...plan, server: { ...plan.server }, peers: plan.peers.map((p) => ({ ...p })) };
    change(copy);
    assert.throws(() => checkPlan(copy), (e: Error & { field?: string }) => e.field === 'file' && why.test(e.message));
  };
  refused((p) => { p.server.endpoint = 'vpn.example.com\nPostUp = x:51820'; }, /the server's endpoint "vpn\.example\.com\\nPostUp = x:51820" must be host:port/);
  refused((p) => { p.server.dns = '1.1.1.1\nPostUp = x'; }, /the server's dns .* must be "auto" .* or IP addresses separated by commas/);
  refused((p) => { p.server.interface = 'wg0\n'; }, /the server's interface/);
  refused((p) => { p.peers[0].privateKey = 'x\ny'; }, /its privateKey "x\\ny" must be a WireGuard key/);
});

t.run();
