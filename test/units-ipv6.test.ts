import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  formatIpv6, isHostOf6, isUla, overlaps6, parseCidr6, parseIpv6, ulaPrefix, formatNetwork6, hostAt6,
} from '../src/net/ipv6';
import { migrate } from '../src/store/db';
import { MIGRATIONS } from '../src/store/migrations';
import { backfillIpv6 } from '../src/store/ipv6-backfill';
import { tempDir, client, startTestDaemon } from './helpers/daemon';

const t = suite('IPv6 arithmetic, RFC 5952 text, prefixes and allocation');

t('reads every valid form of an address and refuses the rest', () => {
  assert.is(parseIpv6('::'), 0n);
  assert.is(parseIpv6('::1'), 1n);
  assert.is(parseIpv6('2001:DB8:0:0:0:0:0:1'), parseIpv6('2001:db8::1'));
  assert.is(parseIpv6('::ffff:192.0.2.1'), (0xffffn << 32n) | 0xc0000201n);
  for (const bad of ['1:2:3:4:5:6:7:8:9', '1::2::3', '12345::', 'g::1', '1:2:3:4:5:6:7', '::1.2.3.256', '', ':', '1.2.3.4']) assert.is(parseIpv6(bad), null, bad);
});

t('writes RFC 5952 text: lowercase, no leading zeros, the longest zero run compressed, the first on a tie, never a single group', () => {
  const cases: [string, string][] = [
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:db8:0:0:1:0:0:0', '2001:db8:0:0:1::'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['FD12:3456:789A:0001::0001', 'fd12:3456:789a:1::1'],
  ];
  for (const [input, out] of cases) assert.is(formatIpv6(parseIpv6(input)!), out, input);
});

t('prefixes: containment, the subnet-router anycast address, overlap, ULA', () => {
  const c = parseCidr6('fd12:3456:789a:1::1/64')!;
  assert.ok(isHostOf6(c, parseIpv6('fd12:3456:789a:1::ffff')!));
  assert.not.ok(isHostOf6(c, parseIpv6('fd12:3456:789a:1::')!), 'the all-zero host is the subnet-router anycast');
  assert.not.ok(isHostOf6(c, parseIpv6('fd12:3456:789a:2::1')!));
  assert.ok(overlaps6(c, parseCidr6('fd12:3456:789a::/48')!));
  assert.not.ok(overlaps6(c, parseCidr6('fd12:3456:789a:2::1/64')!));
  assert.ok(isUla(parseIpv6('fd00::1')!) && isUla(parseIpv6('fc00::1')!));
  assert.not.ok(isUla(parseIpv6('2001:db8::1')!));
  assert.is(parseCidr6('fd00::/129'), null);
  assert.is(formatNetwork6(c), 'fd12:3456:789a:1::/64');
});

t('a unique local /64 is fd, the 40-bit Global ID and the 16-bit subnet id', () => {
  assert.is(formatNetwork6(ulaPrefix(0x123456789an, 1)), 'fd12:3456:789a:1::/64');
  assert.is(formatIpv6(hostAt6(ulaPrefix(0xffffffffffn, 0xffff), 1n)), 'fdff:ffff:ffff:ffff::1');
});

t('an older database gets a /64 per server and each peer the IPv6 twin of its IPv4 host number', () => {
  const db = new Database(path.join(tempDir(), 'old.db'));
  migrate(db, MIGRATIONS.slice(0, 6));
  const now = '2026-01-01T00:00:00.000Z';
  const server = db.prepare(`INSERT INTO servers (id, name, endpoint, mode, interface, address, listen_port, dns, private_key, public_key, created_at, updated_at)
    VALUES (?, 's', 'h:1', 'forward', ?, ?, ?, '10.1.0.1', 'k', 'K', ?, ?)`);
  server.run(1, 'wgcp1', '10.1.0.1/24', 51820, now, now);
  server.run(2, 'wgcp2', '10.2.0.1/16', 51821, now, now);
  const peer = db.prepare(`INSERT INTO peers (server_id, ip, public_key, preshared_key, created_at, updated_at) VALUES (?, ?, ?, 'psk', ?, ?)`);
  peer.run(1, '10.1.0.5', 'A', now, now);
  peer.run(2, '10.2.3.4', 'B', now, now);
  migrate(db, MIGRATIONS);
  backfillIpv6(db);
  const gid = (db.prepare("SELECT value FROM job_state WHERE name = 'ulaGlobalId'").pluck().get() as string);
  assert.match(gid, /^[0-9a-f]{10}$/);
  const prefix = `fd${gid.slice(0, 2)}:${gid.slice(2, 6).replace(/^0+(?=.)/, '')}:${gid.slice(6, 10).replace(/^0+(?=.)/, '')}`;
  const servers = db.prepare('SELECT id, address6 FROM servers ORDER BY id').all() as { id: number; address6: string }[];
  assert.equal(servers, [{ id: 1, address6: `${prefix}:1::1/64` }, { id: 2, address6: `${prefix}:2::1/64` }]);
  const peers = db.prepare('SELECT ip, ip6 FROM peers ORDER BY id').all();
  assert.equal(peers, [{ ip: '10.1.0.5', ip6: `${prefix}:1::5` }, { ip: '10.2.3.4', ip6: `${prefix}:2::304` }]);
  backfillIpv6(db);
  assert.equal(db.prepare('SELECT ip, ip6 FROM peers ORDER BY id').all(), peers, 'once only');
  db.close();
});

t('through the API: a new server gets its /64, peers their /128 mirroring the IPv4 host, and the rules hold', async () => {
  const d = await startTestDaemon();
  const api = client(d);
  try {
    const s = await api.post('/api/servers', { name: 'v6', endpoint: '[2001:db8::1]:51820', mode: 'forward', address: '10.50.0.1/24' });
    assert.is(s.status, 201, s.text);
    assert.match(s.json.address6, /^fd[0-9a-f]{2}:[0-9a-f]{1,4}:[0-9a-f]{1,4}:1::1\/64$/);
    const p = (await api.post(`/api/servers/${s.json.id}/peers`, { name: 'a' })).json;
    assert.is(p.ip, '10.50.0.2');
    assert.is(p.ip6, s.json.address6.replace('::1/64', '::2'));
    const chosen = await api.post(`/api/servers/${s.json.id}/peers`, { ip6: s.json.address6.replace('::1/64', ':0:0:0:ABCD') });
    assert.is(chosen.status, 201, chosen.text);
    assert.is(chosen.json.ip6, s.json.address6.replace('::1/64', '::abcd'), 'stored in RFC 5952 form');
    const bad = async (body: unknown, field: string, status = 400) => {
      const r = await api.post(`/api/servers/${s.json.id}/peers`, body);
      assert.is(r.status, status, r.text);
      assert.is(r.json.field, field);
    };
    await bad({ ip6: '2001:db8::5' }, 'ip6');
    await bad({ ip6: s.json.address6.replace('/64', '') }, 'ip6');
    await bad({ ip6: p.ip6 }, 'ip6');
    await bad({ ip6: 'nope' }, 'ip6');
    const other = await api.post('/api/servers', { name: 'o', endpoint: 'h.example:51821', mode: 'forward', address6: s.json.address6.replace('::1/64', '::7/64') });
    assert.is(other.status, 400);
    assert.is(other.json.field, 'address6');
    const v4only = await api.post('/api/servers', { name: 'v4', endpoint: 'h.example:51822', mode: 'standalone', address6: null });
    assert.is(v4only.json.address6, null);
    const q = (await api.post(`/api/servers/${v4only.json.id}/peers`, {})).json;
    assert.is(q.ip6, null);
    assert.match((await api.get(`/api/peers/${q.id}/config`)).text, /^Address = 10\.\d+\.\d+\.\d+\/32$/m, 'an IPv4-only server hands out IPv4 only');
    const global = await api.post('/api/servers', { name: 'g', endpoint: 'h.example:51823', mode: 'forward', address6: '2001:DB8:AA::1/64' });
    assert.is(global.json.address6, '2001:db8:aa::1/64');
  } finally {
    await d.stop();
  }
});

t('allocation at the end of a small prefix: the last host, then a clear refusal', async () => {
  const d = await startTestDaemon();
  const api = client(d);
  try {
    const s = (await api.post('/api/servers', { name: 'tiny', endpoint: 'h.example:51830', mode: 'forward', address: '10.60.0.1/24', address6: 'fd99::1/124' })).json;
    const ips = [];
    for (let i = 0; i < 14; i++) ips.push((await api.post(`/api/servers/${s.id}/peers`, {})).json.ip6);
    assert.is(ips.at(-1), 'fd99::f', 'the last host of the prefix');
    assert.is(new Set(ips).size, 14);
    const full = await api.post(`/api/servers/${s.id}/peers`, {});
    assert.is(full.status, 400);
    assert.is(full.json.field, 'ip6');
    assert.match(full.json.error, /no free address is left in fd99::1\/124/);
  } finally {
    await d.stop();
  }
});

t('the API listens on an IPv6 literal: [::1]:port', async () => {
  const d = await startTestDaemon({ env: { WGCP_LISTEN: '[::1]:0' } });
  try {
    assert.is(d.config.listen.host, '::1');
    const r = await fetch(`http://[::1]:${d.daemon.port}/healthz`);
    assert.is(r.status, 200);
  } finally {
    await d.stop();
  }
});

t.run();
