import http from 'node:http';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import { call } from './helpers/daemon';
import type { WgcpEvent } from '../src/events/bus';
import { deviceIdPrefix } from '../src/device/identifiers';
import { HEX64, SALT, deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const t = suiteNeeding('device API: provisioning', ['python3:cryptography', 'wg']);
let f: DeviceFixture;
let nowMs = Date.parse('2026-11-22T10:00:00.000Z');
const events: WgcpEvent[] = [];

t.before(async () => {
  // A generous failure limit: this suite makes many failing attempts on purpose.
  f = await deviceFixture({ options: { now: () => new Date(nowMs), provisionLimit: { failures: 10_000, windowMs: 60_000 } } });
  f.d.daemon.app.events.subscribe((e) => events.push(e));
});
t.after(async () => { await f.d.stop(); });

const wgPubkey = (privateHex: string): string =>
  execFileSync('wg', ['pubkey'], { input: Buffer.from(privateHex, 'hex').toString('base64') + '\n', encoding: 'utf8' }).trim();

t('answers encrypted_config that an independent AES-GCM (Python cryptography) decrypts to the contract payload', async () => {
  const token = await f.newToken();
  const r = await f.provision(token, 'board-0001');
  assert.is(r.status, 200);
  assert.equal(Object.keys(r.json), ['encrypted_config']);
  const blob: string = r.json.encrypted_config;
  assert.match(blob, /^[A-Za-z0-9+/]+={0,2}$/, 'standard base64 alphabet');
  assert.is(blob.length % 4, 0, 'padded');
  const payload = pythonDecrypt(blob, 'board-0001');
  assert.equal(Object.keys(payload).sort(), ['allowed_ips', 'allowed_ips6', 'device_id', 'dns', 'endpoint', 'internal_ip', 'internal_ip6', 'preshared_key', 'private_key', 'server_pub', 'server_wg_ip', 'server_wg_ip6']);
  for (const k of ['private_key', 'preshared_key', 'server_pub']) assert.match(payload[k] as string, HEX64, `${k} is 64 lowercase hex`);
  const raw = Buffer.from(blob, 'base64');
  assert.is(raw.length, 12 + Buffer.byteLength(JSON.stringify(payload)) + 16, 'nonce(12) || ciphertext || tag(16)');

  const server = (await f.api.get(`/api/servers/${f.serverId}`)).json;
  assert.is(payload.server_pub, Buffer.from(server.publicKey, 'base64').toString('hex'), 'the same key the control plane shows in base64');
  const devices = (await f.api.get('/api/devices')).json;
  const device = devices.find((x: { hwid: string }) => x.hwid === 'board-0001');
  assert.is(payload.device_id, device.uuid, 'an admin sees the whole device_id');
  assert.match(device.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const peer = (await f.api.get(`/api/peers/${device.peerID}`)).json;
  assert.is(peer.serverID, f.serverId);
  assert.is(wgPubkey(payload.private_key as string), peer.publicKey, 'the private key belongs to the peer the control plane shows');
  assert.is(payload.internal_ip, peer.ip);
  assert.is(payload.server_wg_ip, '10.44.0.1');
  assert.is(payload.endpoint, 'vpn.example.com:51820');
  assert.is(payload.dns, '', 'no resolver listens on 10.44.0.1: none (dns `auto`)');
  assert.is(payload.allowed_ips, '10.44.0.0/24');
});

t('uses a fresh random nonce for every payload', async () => {
  const a = await f.provision(await f.newToken(), 'nonce-a');
  const b = await f.provision(await f.newToken(), 'nonce-a');
  assert.is.not(Buffer.from(a.json.encrypted_config, 'base64').subarray(0, 12).toString('hex'), Buffer.from(b.json.encrypted_config, 'base64').subarray(0, 12).toString('hex'));
});

t('a payload encrypted for one hwid does not decrypt under another hwid or salt', async () => {
  const r = await f.provision(await f.newToken(), 'board-x');
  assert.throws(() => pythonDecrypt(r.json.encrypted_config, 'board-y'));
  assert.throws(() => pythonDecrypt(r.json.encrypted_config, 'board-x', SALT + 'x'));
});

async function expectError(r: Awaited<ReturnType<typeof call>>, status: number, text: string) {
  assert.is(r.status, status, `${status} ${text} (got ${r.status} ${r.text})`);
  assert.equal(r.json, { error: text }, 'the body is exactly {"error": text}');
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
}

t('answers every provisioning error row with its status and exact text, in the settled check order', async () => {
  const fresh = await f.newToken();
  const unknown = '8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b';
  const raw = (body: unknown) => call(f.d.url, 'POST', '/api/v1/provision', body);
  await expectError(await raw({ hwid: 'h' }), 400, 'invalid token format');
  await expectError(await raw({ token: 'not-a-uuid', hwid: 'h' }), 400, 'invalid token format');
  await expectError(await raw({ token: 12345, hwid: 'h' }), 400, 'invalid token format');
  await expectError(await raw({ token: fresh + 'a', hwid: 'h' }), 400, 'invalid token format');
  await expectError(await raw({ token: 'nope', hwid: '' }), 400, 'invalid token format');
  for (const hwid of [undefined, '', 'has space', 'x'.repeat(129), 'caf\u00e9', 'tab\there', 42, null]) {
    await expectError(await raw({ token: fresh, hwid }), 400, 'invalid hardware id');
  }
  await expectError(await raw({ token: unknown, hwid: '' }), 400, 'invalid hardware id');
  await expectError(await raw({ token: unknown, hwid: 'h' }), 403, 'invalid token');
  // None of the refusals above consumed the token.
  assert.is((await raw({ token: fresh, hwid: 'x'.repeat(128) })).status, 200);
  await expectError(await raw({ token: fresh, hwid: 'other' }), 400, 'token already used');
  await expectError(await raw({ token: fresh, hwid: 'bad hwid' }), 400, 'invalid hardware id');
  await expectError(await raw({ token: fresh.toUpperCase(), hwid: 'other' }), 400, 'token already used');
});

t('expires a token 24 hours after it was made (injected clock); a used token stays "already used"', async () => {
  const start = nowMs;
  const early = await f.newToken();
  const late = await f.newToken();
  const used = await f.newToken();
  assert.is((await f.provision(used, 'clock-a')).status, 200);
  nowMs = start + 24 * 3600_000 - 1;
  assert.is((await f.provision(early, 'clock-b')).status, 200, 'valid one millisecond before 24 h');
  nowMs = start + 24 * 3600_000;
  await expectError(await f.provision(late, 'clock-c'), 403, 'token expired');
  await expectError(await f.provision(used, 'clock-a'), 400, 'token already used');
  const listed = (await f.api.get(`/api/servers/${f.serverId}/tokens`)).json as { token: string; state: string; deviceID: string | null }[];
  assert.is(listed.find((x) => x.token === late)!.state, 'expired');
  assert.is(listed.find((x) => x.token === early)!.state, 'used');
  assert.ok(listed.find((x) => x.token === early)!.deviceID);
  nowMs = start;
});

t('twenty concurrent provisions of one token: exactly one 200, the others "token already used"', async () => {
  const token = await f.newToken();
  const before = (await f.api.get('/api/devices')).json.length;
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => f.provision(token, `race-${i}`)));
  const won = results.filter((r) => r.status === 200);
  assert.is(won.length, 1);
  for (const r of results.filter((x) => x.status !== 200)) assert.equal([r.status, r.json], [400, { error: 'token already used' }]);
  assert.is((await f.api.get('/api/devices')).json.length, before + 1);
});

function startSecondDaemon(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const main = path.join(__dirname, '..', 'src', 'main.js');
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, WGCP_DATA_DIR: dataDir, WGCP_LISTEN: '127.0.0.1:0', WGCP_KERNEL: 'off', SERVER_SALT: SALT, WGCP_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`second daemon did not start: ${out}`)), 10_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /"msg":"wgcpd is listening"[^\n]*"port":(\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ child, url: `http://127.0.0.1:${m[1]}` }); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`second daemon exited ${code}: ${out}`)); });
  });
}

t('single use holds across two daemon processes sharing the database: exactly one of 20 wins', async () => {
  const other = await startSecondDaemon(f.d.dataDir);
  try {
    const token = await f.newToken();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      call(i % 2 === 0 ? f.d.url : other.url, 'POST', '/api/v1/provision', { token, hwid: `proc-${i}` })));
    assert.is(results.filter((r) => r.status === 200).length, 1);
    assert.is(results.filter((r) => r.status === 400 && r.json.error === 'token already used').length, 19);
  } finally {
    other.child.kill('SIGTERM');
    await new Promise((r) => other.child.once('exit', r));
  }
});

t('a known hwid on the same server keeps its device_id and address and gets new keys', async () => {
  const first = pythonDecrypt((await f.provision(await f.newToken(), 'returning-1')).json.encrypted_config, 'returning-1');
  const peersBefore = (await f.api.get(`/api/servers/${f.serverId}/peers`)).json.length;
  const second = pythonDecrypt((await f.provision(await f.newToken(), 'returning-1')).json.encrypted_config, 'returning-1');
  assert.is(second.device_id, first.device_id);
  assert.is(second.internal_ip, first.internal_ip);
  assert.is.not(second.private_key, first.private_key);
  assert.is.not(second.preshared_key, first.preshared_key);
  assert.is((await f.api.get(`/api/servers/${f.serverId}/peers`)).json.length, peersBefore, 'no second peer');
  const device = (await f.api.get(`/api/devices/${(await f.deviceOf(first.device_id as string)).id}`)).json;
  assert.is((await f.api.get(`/api/peers/${device.peerID}`)).json.publicKey, wgPubkey(second.private_key as string));
});

t('by default a used token is 400 "token already used" even for the same hwid a moment later (the contract\'s table)', async () => {
  const token = await f.newToken();
  assert.is((await f.provision(token, 'strand-1')).status, 200);
  const devicesBefore = (await f.api.get('/api/devices')).json.length;
  events.length = 0;
  await expectError(await f.provision(token, 'strand-1'), 400, 'token already used');
  assert.is((await f.api.get('/api/devices')).json.length, devicesBefore);
  assert.equal(events, [], 'nothing changed, nothing announced');
});

t('twelve concurrent provisions of one token and one hwid: exactly one 200, the rest 400 "token already used"', async () => {
  const token = await f.newToken();
  const results = await Promise.all(Array.from({ length: 12 }, () => f.provision(token, 'herd-same-hwid')));
  assert.is(results.filter((r) => r.status === 200).length, 1);
  for (const r of results.filter((x) => x.status !== 200)) assert.equal([r.status, r.json], [400, { error: 'token already used' }]);
});

t('the same hwid on another server is another device', async () => {
  const s2 = await f.api.post('/api/servers', { name: 'second', endpoint: 'vpn2.example.com:51821', mode: 'standalone', address: '10.45.0.1/24' });
  const a = pythonDecrypt((await f.provision(await f.newToken(), 'twin')).json.encrypted_config, 'twin');
  const b = pythonDecrypt((await f.provision(await f.newToken(s2.json.id), 'twin')).json.encrypted_config, 'twin');
  assert.is.not(b.device_id, a.device_id);
  assert.is(b.server_wg_ip, '10.45.0.1');
  assert.is(b.endpoint, 'vpn2.example.com:51821');
});

t('announces deviceProvisioned (and the peer event) after the commit', async () => {
  events.length = 0;
  const r = await f.provision(await f.newToken(), 'evented');
  const payload = pythonDecrypt(r.json.encrypted_config, 'evented');
  const names = events.map((e) => e.event);
  assert.equal(names, ['peerCreated', 'deviceProvisioned']);
  const e = events[1];
  assert.is(e.action, 6);
  assert.is(e.serverID, f.serverId);
  // The device is named by its id's prefix: the whole id is a credential and never leaves in an event.
  assert.is((e.data.device as { uuidPrefix: string }).uuidPrefix, deviceIdPrefix(payload.device_id as string));
  assert.not.ok(JSON.stringify(e).includes(payload.device_id as string), 'no whole device id in the event');
  assert.is(e.data.reprovisioned, false);
  assert.not.ok(JSON.stringify(e.data).includes(payload.private_key as string), 'no private key in the event');
});

t('refuses a device API body over 8 KiB with 413, and accepts one just under', async () => {
  const token = await f.newToken();
  const big = await call(f.d.url, 'POST', '/api/v1/provision', JSON.stringify({ token, hwid: 'big', pad: 'a'.repeat(8 * 1024) }));
  assert.is(big.status, 413);
  assert.equal(Object.keys(big.json), ['error']);
  const fits = await call(f.d.url, 'POST', '/api/v1/provision', JSON.stringify({ token, hwid: 'big', pad: 'a'.repeat(7 * 1024) }));
  assert.is(fits.status, 200, 'an unknown field is ignored and the token still worked');
});

t('needs no credentials, and malformed JSON is a 400 with an error text', async () => {
  const r = await call(f.d.url, 'POST', '/api/v1/provision', '{"token": ');
  assert.is(r.status, 400);
  assert.equal(Object.keys(r.json), ['error']);
  assert.is((await call(f.d.url, 'GET', '/api/v1/provision')).status, 405);
});

t('registration tokens: listed per server, revoked by value, 404 for unknown server or token, behind credentials', async () => {
  const token = await f.newToken();
  const list = (await f.api.get(`/api/servers/${f.serverId}/tokens`)).json as { token: string; state: string; expiresAt: string; createdAt: string }[];
  const row = list.find((x) => x.token === token)!;
  assert.is(row.state, 'unused');
  assert.is(Date.parse(row.expiresAt) - Date.parse(row.createdAt), 24 * 3600_000);
  assert.is((await f.api.del(`/api/tokens/${token}`)).status, 204);
  await expectError(await f.provision(token, 'revoked'), 403, 'invalid token');
  assert.is((await f.api.del(`/api/tokens/${token}`)).status, 404);
  assert.is((await f.api.del('/api/tokens/not-a-uuid')).status, 404);
  assert.is((await f.api.post('/api/servers/999/tokens', undefined)).status, 404);
  assert.is((await f.api.get('/api/servers/999/tokens')).status, 404);
  assert.is((await call(f.d.url, 'POST', `/api/servers/${f.serverId}/tokens`)).status, 401);
  assert.is((await call(f.d.url, 'GET', `/api/servers/${f.serverId}/tokens`)).status, 401);
});

t.run();

// Rate limiting needs its own daemon: a low limit and a clock the test moves.
const rl = suite('device API: failed provisioning is rate-limited per source address');
let g: DeviceFixture;
let clock = Date.parse('2026-11-22T12:00:00.000Z');
rl.before(async () => { g = await deviceFixture({ options: { now: () => new Date(clock), provisionLimit: { failures: 3, windowMs: 60_000 } } }); });
rl.after(async () => { await g.d.stop(); });

function provisionFrom(localAddress: string, url: string, body: unknown): Promise<{ status: number; json: any; retryAfter: string | undefined }> {
  const u = new URL('/api/v1/provision', url);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text), retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

rl('after 3 failures a further failure from that address gets 429 with {"error"} and Retry-After; other addresses are not affected; the window ends', async () => {
  for (let i = 0; i < 3; i++) assert.is((await provisionFrom('127.0.0.1', g.d.url, { token: 'bad', hwid: 'h' })).status, 400);
  const blocked = await provisionFrom('127.0.0.1', g.d.url, { token: '8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b', hwid: 'h' });
  assert.is(blocked.status, 429, 'an unknown token from a blocked address: 429, not its 403');
  assert.equal(Object.keys(blocked.json), ['error']);
  assert.is(blocked.retryAfter, '60');
  assert.is((await provisionFrom('127.0.0.2', g.d.url, { token: 'bad', hwid: 'h' })).status, 400, 'another source address still gets its own answer');
  clock += 60_000;
  assert.is((await provisionFrom('127.0.0.1', g.d.url, { token: 'bad', hwid: 'h' })).status, 400, 'the window has ended');
});

rl('successful provisionings do not count against the address', async () => {
  for (let i = 0; i < 5; i++) assert.is((await provisionFrom('127.0.0.3', g.d.url, { token: await g.newToken(), hwid: `ok-${i}` })).status, 200);
});

rl('behind one NAT a good token still provisions from a blocked address, and that success clears the count', async () => {
  // One device behind the router's NAT fails three times; another behind the same address has a good token.
  for (let i = 0; i < 3; i++) assert.is((await provisionFrom('127.0.0.4', g.d.url, { token: 'bad', hwid: 'h' })).status, 400);
  assert.is((await provisionFrom('127.0.0.4', g.d.url, { token: 'bad', hwid: 'h' })).status, 429, 'failures from a blocked address get 429');
  const ok = await provisionFrom('127.0.0.4', g.d.url, { token: await g.newToken(), hwid: 'nat-neighbour' });
  assert.is(ok.status, 200, 'the neighbour with a good token is not locked out');
  const after = await provisionFrom('127.0.0.4', g.d.url, { token: 'bad', hwid: 'h' });
  assert.is(after.status, 400, 'the success cleared the count: a failure gets its own answer again, not 429');
  assert.equal(after.json, { error: 'invalid token format' });
});

rl.run();
