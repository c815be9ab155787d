// Webhooks and SMTP never reach wgcpd's own listeners or link-local/metadata addresses:
// refused when the address is given, and again at delivery after the name is resolved
// (a webhook or SMTP setting stored before the rule, or a name that resolves elsewhere).
import os from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { eventually, Receiver } from './helpers/receiver';
import { createLogger } from '../src/log';
import { hostRefusal, refusalOf, type GuardFacts } from '../src/net/address-guard';
import { formatIp, parseIp } from '../src/net/ip-address';
import { sendWebhook } from '../src/events/webhook-send';
import type { Resolve } from '../src/net/guarded-lookup';

const t = suite('address guard at delivery: webhooks and SMTP');
let d: TestDaemon;
let api: ReturnType<typeof client>;
let sid: number;
const logLines: { msg: string; route?: string; status?: number }[] = [];

t.before(async () => {
  d = await startTestDaemon({
    env: { WGCP_LOG_LEVEL: 'debug' },
    options: { log: createLogger('debug', (l) => { logLines.push(JSON.parse(l)); }), events: { retryBaseMs: 20, timeoutMs: 2000, schedule: false } },
  });
  api = client(d);
  sid = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'standalone' })).json.id;
});
t.after(async () => { await d.stop(); });

/** A webhook written straight to the database, as one saved before the rule existed would be. */
function storedHook(url: string): number {
  const now = new Date().toISOString();
  return d.daemon.app.store.webhooks.insert({
    serverId: sid, name: 'old', url, isEnabled: true, isGlobal: false, verifySSL: true, subscribedActions: [],
    template: 'default', defaultPayload: '', customBody: '', customHeaders: '', secret: '', createdAt: now, updatedAt: now,
  }).id;
}

/** Requests the daemon served for no route: what a webhook to its own port would show up as. */
const strayRequests = () => logLines.filter((l) => l.msg === 'request' && l.route === '(none)');

t("a stored webhook to localhost at wgcpd's own port is refused at every delivery attempt; nothing reaches the port", async () => {
  const id = storedHook(`http://localhost:${d.daemon.port}/wgcp-self-probe`);
  assert.is((await api.post(`/api/servers/${sid}/peers`, { name: 'phone' })).status, 201);
  const log = await eventually('five refused attempts', async () => {
    const rows = (await api.get(`/api/webhooks/${id}/deliveries`)).json as { outcome: string; httpStatus: number | null; error: string }[];
    return rows.some((r) => r.outcome === 'failed') ? rows : undefined;
  });
  assert.is(log.length, 5);
  for (const row of log) {
    assert.is(row.httpStatus, null, 'no HTTP answer: no request was made');
    assert.is(row.error, `refused: 127.0.0.1:${d.daemon.port} is wgcpd's own listener`);
  }
  assert.equal(strayRequests(), [], 'the daemon served no request from itself');
});

t("the test event of such a webhook is a 502 that says why, and nothing reaches the port", async () => {
  const id = storedHook(`http://localhost:${d.daemon.port}/wgcp-self-probe`);
  const r = await api.post(`/api/webhooks/${id}/test`, {});
  assert.is(r.status, 502);
  assert.equal([r.json.code, r.json.error], ['WGCP_WEBHOOK_TEST_FAILED', `test delivery failed: refused: 127.0.0.1:${d.daemon.port} is wgcpd's own listener`]);
  assert.equal(strayRequests(), []);
});

t("stored SMTP settings that point at wgcpd's own port by name are refused before connecting: a 502 that says why", async () => {
  const store = d.daemon.app.store.smtp;
  store.save({ ...store.get(), enabled: true, server: 'localhost', port: d.daemon.port, useAuth: false, useTLS: false, fromEmail: 'vpn@router.example' });
  const started = Date.now();
  const r = await api.post('/api/settings/smtp/test', { to: 'ops@example.com' });
  assert.is(r.status, 502);
  assert.equal([r.json.code, r.json.error], ['WGCP_MAIL_NOT_SENT', `mail was not sent: refused: 127.0.0.1:${d.daemon.port} is wgcpd's own listener`]);
  assert.ok(Date.now() - started < 2000, 'refused at once, not after an SMTP greeting timeout');
  assert.equal(strayRequests(), []);
});

t.run();

const rules = suite('address guard rules');
const none: GuardFacts = { listeners: [], localAddresses: [] };

rules('reads every spelling of an address, an IPv4-mapped IPv6 address as its IPv4', () => {
  assert.is(formatIp(parseIp('::ffff:169.254.169.254')!), '169.254.169.254');
  assert.is(formatIp(parseIp('[::ffff:a9fe:a9fe]')!), '169.254.169.254');
  assert.is(formatIp(parseIp('FE80:0:0:0:0:0:0:1%eth0')!), 'fe80::1');
  assert.is(formatIp(parseIp('::')!), '::');
  assert.is(parseIp('vpn.example.com'), null);
});

rules('refuses link-local, metadata and unspecified addresses, also behind NAT64; allows loopback, private and public ones', () => {
  for (const a of ['169.254.169.254', '169.254.0.1', '::ffff:169.254.169.254', 'fe80::1', 'febf:ffff::1', '0.0.0.0', '0.1.2.3', '::',
    '100.100.100.200', 'fd00:ec2::254', '64:ff9b::a9fe:a9fe']) assert.ok(refusalOf(a, 80, none), a);
  for (const a of ['127.0.0.1', '::1', '10.0.0.1', '172.16.0.1', '192.168.1.1', 'fd00::1', '100.64.0.1', '169.255.0.1', 'fec0::1', '1.1.1.1', '2001:db8::1'])
    assert.is(refusalOf(a, 80, none), null, a);
  assert.equal(refusalOf('::ffff:a9fe:a9fe', 80, none), { target: '169.254.169.254', what: 'a link-local address' });
});

rules("a listener on a given address is reached at that address and port only; one on 0.0.0.0 or :: at every address of the host", () => {
  const own = (address: string): GuardFacts => ({ listeners: [{ address, port: 8080 }], localAddresses: ['127.0.0.1', '192.168.1.1', 'fd00::1'] });
  assert.equal(refusalOf('127.0.0.1', 8080, own('127.0.0.1')), { target: '127.0.0.1:8080', what: "wgcpd's own listener" });
  assert.is(refusalOf('127.0.0.2', 8080, own('127.0.0.1')), null);
  assert.is(refusalOf('127.0.0.1', 8081, own('127.0.0.1')), null);
  assert.is(refusalOf('192.168.1.1', 8080, own('127.0.0.1')), null);
  for (const bound of ['0.0.0.0', '::']) {
    for (const a of ['127.0.0.1', '127.9.9.9', '192.168.1.1', '::ffff:192.168.1.1', '::1', 'fd00::1']) assert.ok(refusalOf(a, 8080, own(bound)), `${a} on ${bound}`);
    assert.is(refusalOf('192.168.1.2', 8080, own(bound)), null, 'another machine on the LAN');
  }
  assert.equal(refusalOf('fd00::1', 8080, own('::')), { target: '[fd00::1]:8080', what: "wgcpd's own listener" });
});

rules('on input, localhost names mean loopback and numeric host spellings are read as the URL parser reads them', () => {
  const own: GuardFacts = { listeners: [{ address: '::1', port: 9000 }], localAddresses: [] };
  assert.ok(hostRefusal('localhost', 9000, own));
  assert.ok(hostRefusal('api.localhost.', 9000, own));
  assert.is(hostRefusal('localhost', 9001, own), null);
  assert.equal(hostRefusal('2852039166', 25, none), { target: '169.254.169.254', what: 'a link-local address' });
  assert.ok(hostRefusal('0xa9fea9fe', 25, none));
  assert.is(hostRefusal('smtp.example.com', 25, none), null, 'names are judged once resolved, at delivery');
});

rules.run();

const lookup = suite('address guard at delivery: the checked address is the one connected to');
let rx: Receiver;
lookup.before(async () => { rx = await Receiver.start(); });
lookup.after(async () => { await rx.close(); });

/** A resolver of made-up names: a name it knows reaches only what it says, since no DNS knows it. */
const names = (table: Record<string, string[]>): Resolve => async (host) => {
  const list = table[host];
  if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const rendered = { body: '{"event":"test"}', headers: { 'Content-Type': 'application/json' } };

lookup('a name the guard resolved to a loopback receiver is delivered there', async () => {
  const port = new URL(rx.url).port;
  const r = await sendWebhook(`http://receiver.wgcp.test:${port}/hook`, rendered, true, 2000, names({ 'receiver.wgcp.test': ['127.0.0.1'] }));
  assert.is(r.ok, true, r.error);
  assert.is((await rx.waitFor(1))[0].headers.host, `receiver.wgcp.test:${port}`, 'the Host header keeps the name');
});

lookup('a name that resolves to a metadata address, or to one refused address among allowed ones, is refused without connecting', async () => {
  const table = names({ 'metadata.wgcp.test': ['169.254.169.254'], 'mixed.wgcp.test': ['127.0.0.1', 'fe80::1'] });
  const before = rx.received.length;
  const meta = await sendWebhook('http://metadata.wgcp.test/latest/meta-data/', rendered, true, 2000, table);
  assert.equal([meta.ok, meta.httpStatus, meta.error], [false, null, 'refused: 169.254.169.254 is a link-local address']);
  const mixed = await sendWebhook(`http://mixed.wgcp.test:${new URL(rx.url).port}/hook`, rendered, true, 2000, table);
  assert.is(mixed.error, 'refused: fe80::1 is a link-local address');
  assert.is(rx.received.length, before, 'the receiver, reachable at the allowed address, got nothing');
});

lookup('a stored literal address is refused at delivery too, in any spelling', async () => {
  for (const url of ['http://169.254.169.254/', 'http://[::ffff:a9fe:a9fe]/', 'http://2852039166/']) {
    const r = await sendWebhook(url, rendered, true, 2000);
    assert.is(r.error, 'refused: 169.254.169.254 is a link-local address', url);
  }
});

lookup.run();

const anyAddress = suite("a daemon listening on 0.0.0.0: its port is refused at every address of the host");
let wide: TestDaemon;
anyAddress.before(async () => { wide = await startTestDaemon({ env: { WGCP_LISTEN: '0.0.0.0:0' } }); });
anyAddress.after(async () => { await wide.stop(); });

anyAddress('webhook urls to 127.0.0.1, localhost or another address of the host at its port are a 400', async () => {
  const api0 = client(wide);
  const server = (await api0.post('/api/servers', { name: 'wide', endpoint: 'vpn.example.com:51820', mode: 'standalone' })).json.id;
  const hostAddresses = Object.values(os.networkInterfaces()).flatMap((l) => l ?? []).filter((i) => i.family === 'IPv4').map((i) => i.address);
  for (const host of ['127.0.0.1', 'localhost', '127.1.2.3', ...hostAddresses]) {
    const r = await api0.post(`/api/servers/${server}/webhooks`, { url: `http://${host}:${wide.daemon.port}/x` });
    assert.is(r.status, 400, `${host}: ${r.text}`);
    assert.match(r.json.error, /^url must not point to wgcpd's own listener \(/);
  }
  assert.is((await api0.post(`/api/servers/${server}/webhooks`, { url: `http://127.0.0.1:${wide.daemon.port + 1}/x` })).status, 201, 'the next port is not ours');
});

anyAddress.run();
