// The client's own options (DNS, AllowedIPs, keepalive, MTU): server defaults, per-peer
// overrides, the DNS default that names the router's resolver only when one answers, and a
// .conf with every option read by the real tools (wg-quick strip, wg setconf on wireguard-go).
import dgram from 'node:dgram';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { stripConf } from '../src/wg/conf';
import { resolverListens } from '../src/net/resolver-listening';

const t = suite('client options');
let d: TestDaemon;
let api: ReturnType<typeof client>;
let serverId: number;

t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
  serverId = (await api.post('/api/servers', { name: 'co', endpoint: '127.0.0.1:51820', mode: 'standalone', address: '10.61.0.1/24' })).json.id;
});
t.after(async () => { await d.stop(); });

const conf = async (id: number) => (await api.get(`/api/peers/${id}/config`)).text;
const freePort = (): Promise<number> => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => resolve(p)); });
});

t('a new server names no DNS by default when no resolver listens on its tunnel address', async () => {
  const s = (await api.get(`/api/servers/${serverId}`)).json;
  assert.is(s.dns, 'auto');
  assert.is(s.persistentKeepalive, 25);
  assert.is(s.clientAllowedIPs, null);
  const p = (await api.post(`/api/servers/${serverId}/peers`, {})).json;
  const text = await conf(p.id);
  assert.not.match(text, /^DNS/m);
  assert.match(text, /\nPersistentKeepalive = 25\n/);
});

t('a resolver seen listening (UDP or TCP, on the address or the wildcard) is found; none is not', async () => {
  const port = await freePort();
  assert.is(resolverListens('127.61.0.1', { port }), false);
  const udp = dgram.createSocket('udp4');
  await new Promise<void>((r, j) => { udp.once('error', j); udp.bind(port, '127.61.0.1', () => r()); });
  try {
    assert.is(resolverListens('127.61.0.1', { port }), true);
    assert.is(resolverListens('127.61.0.2', { port }), false, 'another address');
  } finally { udp.close(); }
  const tcp = net.createServer().listen(port, '0.0.0.0');
  await new Promise((r) => tcp.once('listening', r));
  try { assert.is(resolverListens('127.61.0.2', { port }), true, 'a TCP wildcard listener'); } finally { tcp.close(); }
});

t('allowInternet still decides AllowedIPs when neither the server nor the peer says otherwise', async () => {
  const full = (await api.post(`/api/servers/${serverId}/peers`, { allowInternet: true })).json;
  const split = (await api.post(`/api/servers/${serverId}/peers`, { allowInternet: false })).json;
  assert.match(await conf(full.id), /\nAllowedIPs = 0\.0\.0\.0\/0, ::\/0\n/);
  assert.match(await conf(split.id), /\nAllowedIPs = 10\.61\.0\.0\/24, fd[0-9a-f:]+::\/64\n/);
});

t('each option overrides the server per peer, and null goes back to the server default', async () => {
  const p = (await api.post(`/api/servers/${serverId}/peers`, {
    allowInternet: true, dns: ['9.9.9.9', '2620:FE::FE'], clientAllowedIPs: ['192.168.7.9/24', 'fd00:1::1/64'], persistentKeepalive: 0, mtu: 1360,
  })).json;
  assert.equal([p.dns, p.clientAllowedIPs, p.persistentKeepalive, p.mtu], [['9.9.9.9', '2620:fe::fe'], ['192.168.7.0/24', 'fd00:1::/64'], 0, 1360]);
  const text = await conf(p.id);
  assert.match(text, /\nDNS = 9\.9\.9\.9, 2620:fe::fe\nMTU = 1360\n/);
  assert.match(text, /\nAllowedIPs = 192\.168\.7\.0\/24, fd00:1::\/64\n/);
  assert.not.match(text, /PersistentKeepalive/, '0 is off');
  const back = (await api.put(`/api/peers/${p.id}`, { dns: null, clientAllowedIPs: 'split', persistentKeepalive: null, mtu: null })).json;
  assert.equal([back.dns, back.clientAllowedIPs, back.persistentKeepalive, back.mtu], [null, 'split', null, null]);
  const again = await conf(p.id);
  assert.not.match(again, /^(DNS|MTU)/m);
  assert.match(again, /\nAllowedIPs = 10\.61\.0\.0\/24, /, 'split although allowInternet');
  assert.match(again, /\nPersistentKeepalive = 25\n/);
  assert.is((await api.put(`/api/peers/${p.id}`, { dns: [] })).json.dns.length, 0, '[]: no DNS line');
});

t('the server defaults apply to peers that do not override them', async () => {
  const sid = (await api.post('/api/servers', { name: 'def', endpoint: '127.0.0.1:51822', mode: 'standalone', address: '10.63.0.1/24',
    dns: '1.1.1.1', mtu: 1400, persistentKeepalive: 40, clientAllowedIPs: 'split' })).json.id;
  const p = (await api.post(`/api/servers/${sid}/peers`, { allowInternet: true })).json;
  const text = await conf(p.id);
  assert.match(text, /\nDNS = 1\.1\.1\.1\nMTU = 1400\n/);
  assert.match(text, /\nAllowedIPs = 10\.63\.0\.0\/24, /);
  assert.match(text, /\nPersistentKeepalive = 40\n/);
  assert.is((await api.put(`/api/servers/${sid}`, { dns: '' })).status, 200);
  assert.not.match(await conf(p.id), /^DNS/m, 'the server may say none');
});

t('values that break their rule are refused with 400 naming the field', async () => {
  for (const [field, value] of [
    ['dns', ['1.1.1.1\nPostUp = touch /tmp/x']], ['dns', '1.1.1.1'], ['dns', ['example.com']],
    ['clientAllowedIPs', ['10.0.0.0/33']], ['clientAllowedIPs', 'some'], ['clientAllowedIPs', []], ['clientAllowedIPs', ['10.0.0.0/8\u2028']],
    ['persistentKeepalive', -1], ['persistentKeepalive', 65536], ['persistentKeepalive', 1.5], ['mtu', 1000], ['mtu', '1400'],
  ] as const) {
    const r = await api.post(`/api/servers/${serverId}/peers`, { [field]: value });
    assert.is(r.status, 400, `${field} ${JSON.stringify(value)}`);
    assert.match(r.text, field);
  }
  assert.is((await api.put(`/api/servers/${serverId}`, { dns: 'auto\nPostUp = x' })).status, 400);
  assert.is((await api.put(`/api/servers/${serverId}`, { persistentKeepalive: -5 })).status, 400);
});

t.run();

// A resolver on port 53 (a privileged port) and the .conf in wg-quick and wireguard-go: root's.
const real = suiteNeeding('client options: a resolver on port 53, and the .conf in wg-quick and wireguard-go', ['ip', 'wg', 'wg-quick', 'wireguard-go'], { root: true });
real.before(async () => {
  d = await startTestDaemon();
  api = client(d);
  serverId = (await api.post('/api/servers', { name: 'co', endpoint: '127.0.0.1:51820', mode: 'standalone', address: '10.61.0.1/24' })).json.id;
});
real.after(async () => { await d.stop(); });

real('with a resolver listening on the tunnel address, the default DNS is that address', async () => {
  const sid = (await api.post('/api/servers', { name: 'lo', endpoint: '127.0.0.1:51821', mode: 'standalone', address: '127.62.0.1/24' })).json.id;
  const p = (await api.post(`/api/servers/${sid}/peers`, {})).json;
  assert.not.match(await conf(p.id), /^DNS/m);
  const udp = dgram.createSocket('udp4');
  // A bind that fails (the port taken) fails the test rather than waiting for ever.
  await new Promise<void>((r, j) => { udp.once('error', j); udp.bind(53, '127.62.0.1', () => r()); });
  try {
    assert.match(await conf(p.id), /\nDNS = 127\.62\.0\.1\n/);
  } finally { udp.close(); }
});

real('a .conf with every option loads in wg-quick strip and wg setconf on a wireguard-go interface', async () => {
  const p = (await api.post(`/api/servers/${serverId}/peers`, {
    dns: ['9.9.9.9', '2620:fe::fe'], clientAllowedIPs: ['192.168.7.0/24', 'fd00:1::/64'], persistentKeepalive: 15, mtu: 1360,
  })).json;
  const text = await conf(p.id);
  const dir = tempDir();
  const file = path.join(dir, 'wgco0.conf');
  fs.writeFileSync(file, text, { mode: 0o600 });
  const stripped = execFileSync('wg-quick', ['strip', file], { encoding: 'utf8' });
  assert.not.match(stripped, /^(DNS|MTU|Address)/m);
  assert.is(stripped.trim(), stripConf(text).replace(/\n\n+/g, '\n\n').trim(), 'ours strips as wg-quick does');
  const ns = new Netns('co');
  try {
    ns.exec('wireguard-go', ['wgco0']);
    const strippedFile = path.join(dir, 'stripped.conf');
    fs.writeFileSync(strippedFile, stripped, { mode: 0o600 });
    ns.exec('wg', ['setconf', 'wgco0', strippedFile]);
    const shown = ns.exec('wg', ['showconf', 'wgco0']);
    assert.match(shown, /AllowedIPs = 192\.168\.7\.0\/24, fd00:1::\/64/);
    assert.match(shown, /PersistentKeepalive = 15/);
  } finally { ns.destroy(); }
});

real.run();
