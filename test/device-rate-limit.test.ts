// The device API's request buckets (src/device/admission.ts), against real daemons over
// HTTP from distinct loopback source addresses: a herd past the fleet's bucket gets 429
// with Retry-After slots spread at the bucket's rate; a flood of bad heartbeats from one
// address spends only that address's bucket, so real devices elsewhere are answered; and
// one device hammered spends only its own share.
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { KeyedBuckets, RequestBucket, fleetLimit } from '../src/device/request-bucket';
import { loadConfig } from '../src/config';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const unit = suite('device request buckets');

unit('serves the burst, then refuses with Retry-After slots that grow at the bucket\'s rate', () => {
  let now = 0;
  const b = new RequestBucket(() => ({ ratePerS: 2, burst: 4 }), () => now);
  const taken = Array.from({ length: 10 }, () => b.take(1));
  assert.is(taken.filter((x) => x.ok).length, 4);
  const waits = taken.flatMap((x) => (x.ok ? [] : [x.retryAfterS]));
  assert.equal(waits, [1, 1, 2, 2, 3, 3], 'two refused requests a second of slots, as the rate serves them');
  now = 1000;
  assert.ok(b.take(1).ok, 'a second later two tokens are back');
  assert.ok(b.take(1).ok);
  assert.not.ok(b.take(1).ok);
});

unit('keyed buckets: each key its own burst; past the bound the least recently used key goes and comes back full', () => {
  let now = 0;
  const b = new KeyedBuckets(() => ({ ratePerS: 1, burst: 2 }), () => now, 2);
  assert.equal([b.take('a', 1).ok, b.take('a', 1).ok, b.take('a', 1).ok], [true, true, false]);
  assert.equal([b.take('b', 1).ok, b.take('b', 1).ok], [true, true], 'b is not charged for a');
  b.take('a', 1);
  b.take('c', 1);
  assert.is(b.size, 2, 'bounded');
  assert.ok(b.take('b', 1).ok, 'b, least recently used, was dropped and starts full again');
  now = 1000;
  assert.ok(b.take('c', 1).ok);
});

unit('the automatic limit is twice the steady rate of the fleet at the contract\'s 30 s, with a floor', () => {
  assert.equal(fleetLimit(10_000, 50), { ratePerS: (2 * 10_000) / 30, burst: Math.ceil((4 * 10_000) / 30) });
  assert.equal(fleetLimit(10, 50), { ratePerS: 50, burst: 100 });
});

unit('WGCP_DEVICE_RATE: auto by default, a number, 0 for none; anything else is refused', () => {
  const env = { WGCP_DATA_DIR: '/tmp/x' };
  assert.is(loadConfig(env).deviceRate, 'auto');
  assert.is(loadConfig({ ...env, WGCP_DEVICE_RATE: '25' }).deviceRate, 25);
  assert.is(loadConfig({ ...env, WGCP_DEVICE_RATE: '0' }).deviceRate, 0);
  assert.throws(() => loadConfig({ ...env, WGCP_DEVICE_RATE: 'fast' }), /WGCP_DEVICE_RATE/);
});

unit.run();

interface Answer { status: number; json: any; retryAfter: number | null }

/** A device API request from a chosen loopback source address (a distinct client to the daemon). */
function from(localAddress: string, url: string, path: string, body: unknown): Promise<Answer> {
  const u = new URL(path, url);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress, agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text), retryAfter: res.headers['retry-after'] === undefined ? null : Number(res.headers['retry-after']) }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Provisions a device, honouring any 429's Retry-After (provisioning draws from the fleet's bucket too). */
async function enrol(f: DeviceFixture, hwid: string): Promise<string> {
  const token = await f.newToken();
  for (;;) {
    const r = await f.provision(token, hwid);
    if (r.status === 200) return (pythonDecrypt(r.json.encrypted_config, hwid) as { device_id: string }).device_id;
    assert.is(r.status, 429, r.text);
    await sleep(Number(r.headers.get('retry-after')) * 1000);
  }
}

const herd = suiteNeeding('device API under a herd: 429 with Retry-After', ['python3:cryptography']);
let h: DeviceFixture;
const herdIds: string[] = [];
herd.before(async () => {
  h = await deviceFixture({ env: { WGCP_DEVICE_RATE: '5' } });
  for (let i = 0; i < 30; i++) herdIds.push(await enrol(h, `herd-${i}`));
});
herd.after(async () => { await h.d.stop(); });

herd('thirty devices at once from three addresses: the fleet\'s burst is answered, the rest get 429 with spread Retry-After; honoured, every one gets through', async () => {
  // Let the fleet's bucket fill up after the provisionings (a burst is two seconds' worth).
  await sleep(2200);
  const beat = (i: number) => from(`127.0.0.${10 + (i % 3)}`, h.d.url, '/api/v1/heartbeat', { device_id: herdIds[i], status: 'connected' });
  const began = Date.now();
  const first = await Promise.all(herdIds.map((_, i) => beat(i)));
  const seconds = (Date.now() - began) / 1000;
  const ok = first.filter((r) => r.status === 200).length;
  const refused = first.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 429);
  assert.ok(ok >= 10 && ok <= 10 + 5 * seconds + 1, `the fleet's burst (10) and what 5 a second added in ${seconds.toFixed(1)} s answered, got ${ok}`);
  assert.is(ok + refused.length, 30, 'nothing else, no 5xx');
  for (const { r } of refused) assert.equal(r.json, { error: 'too many device requests; try again later' });
  const waits = refused.map(({ r }) => r.retryAfter!);
  assert.ok(waits.every((w) => Number.isInteger(w) && w >= 1), `Retry-After in whole seconds: ${waits}`);
  assert.ok(Math.max(...waits) >= 3, `the refused are spread over several seconds: ${waits}`);
  // Each refused device comes back when it was told to: all are answered, none refused twice.
  const again = await Promise.all(refused.map(async ({ r, i }) => {
    await sleep(r.retryAfter! * 1000);
    return beat(i);
  }));
  assert.equal(again.map((r) => r.status).filter((s) => s !== 200), [], 'every retry at its Retry-After answered');
});

herd.run();

const flood = suiteNeeding('device API: one client cannot spend the others\' share', ['python3:cryptography']);
let g: DeviceFixture;
let real = '';
let hammered = '';
flood.before(async () => {
  g = await deviceFixture({ env: { WGCP_DEVICE_RATE: '20' } });
  real = await enrol(g, 'real-device');
  hammered = await enrol(g, 'hammered-device');
});
flood.after(async () => { await g.d.stop(); });

flood('600 bad heartbeats from one address get 429 there, and a real device from another address is answered', async () => {
  await sleep(2200);
  const bad = (i: number) => (i % 2 === 0 ? { device_id: 'not-a-uuid' } : { device_id: `8f7e6d5c-4b3a-4291-8a7b-${String(i).padStart(12, '0')}` });
  const answers: Answer[] = [];
  const began = Date.now();
  for (let i = 0; i < 600; i += 50) answers.push(...await Promise.all(Array.from({ length: 50 }, (_, j) => from('127.0.0.2', g.d.url, '/api/v1/heartbeat', bad(i + j)))));
  const seconds = (Date.now() - began) / 1000;
  const served = answers.filter((r) => r.status !== 429).length;
  // The source's bucket: twice the fleet's (burst 80, 40 a second at WGCP_DEVICE_RATE=20).
  assert.ok(served <= 80 + 40 * seconds + 5, `the flooding address is held to its own bucket: ${served} of 600 served in ${seconds.toFixed(1)} s`);
  assert.ok(answers.every((r) => [400, 404, 429].includes(r.status)), 'nothing but its own answers and 429');
  const r = await from('127.0.0.3', g.d.url, '/api/v1/heartbeat', { device_id: real, status: 'connected' });
  assert.is(r.status, 200, `a real device from another address: ${JSON.stringify(r.json)}`);
  const p = await from('127.0.0.3', g.d.url, '/api/v1/provision', { token: await g.newToken(), hwid: 'after-flood' });
  assert.is(p.status, 200, 'and a provisioning from there too');
});

flood('300 provisionings with unknown or spent tokens from one address leave a good one from another address answered', async () => {
  await sleep(2200);
  const spent = await g.newToken();
  assert.is((await from('127.0.0.5', g.d.url, '/api/v1/provision', { token: spent, hwid: 'spender' })).status, 200);
  const bad = (i: number) => ({ token: i % 2 === 0 ? spent : `8f7e6d5c-4b3a-4291-8a7b-${String(i).padStart(12, '0')}`, hwid: `flood-${i}` });
  const token = await g.newToken();
  // All at once, the good one last: it arrives while the flood is being answered.
  const began = Date.now();
  const flooding = Array.from({ length: 300 }, (_, i) => from('127.0.0.5', g.d.url, '/api/v1/provision', bad(i)));
  const good = await from('127.0.0.6', g.d.url, '/api/v1/provision', { token, hwid: 'good-in-flood' });
  const answers = await Promise.all(flooding);
  const seconds = (Date.now() - began) / 1000;
  assert.ok(answers.every((r) => [400, 403, 429].includes(r.status)), 'refusals and 429 only');
  const served = answers.filter((r) => r.status !== 429).length;
  assert.ok(served <= 80 + 40 * seconds + 5, `the flooding address is held to its own bucket: ${served} of 300 served in ${seconds.toFixed(1)} s`);
  assert.is(good.status, 200, `a good token from another address: ${JSON.stringify(good.json)}`);
});

flood('one device hammered gets 429 past its own share; another device at the same address is still answered', async () => {
  await sleep(2200);
  const began = Date.now();
  const answers = await Promise.all(Array.from({ length: 30 }, () => from('127.0.0.4', g.d.url, '/api/v1/heartbeat', { device_id: hammered })));
  const seconds = (Date.now() - began) / 1000;
  const ok = answers.filter((r) => r.status === 200).length;
  assert.ok(ok >= 10 && ok <= 10 + seconds + 1, `a device's burst (10) and what 1 a second added in ${seconds.toFixed(1)} s answered, got ${ok}`);
  assert.is(answers.filter((r) => r.status === 429).length, 30 - ok);
  const other = await from('127.0.0.4', g.d.url, '/api/v1/heartbeat', { device_id: real });
  assert.is(other.status, 200, `another device behind the same address: ${JSON.stringify(other.json)}`);
});

flood.run();
