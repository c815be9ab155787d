// The device API under a herd (a site's power back): past its token bucket the daemon
// answers 429 with Retry-After, handing the refused requests successive slots so that their
// retries come spread out; nothing is answered 5xx and every device gets through.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { RequestBucket, fleetLimit } from '../src/device/request-bucket';
import { loadConfig } from '../src/config';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const unit = suite('device request bucket');

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

const t = suiteNeeding('device API under a herd: 429 with Retry-After', ['python3:cryptography']);
let f: DeviceFixture;
let deviceId: string;
t.before(async () => {
  f = await deviceFixture({ env: { WGCP_DEVICE_RATE: '5' } });
  const r = await f.provision(await f.newToken(), 'herd-1');
  deviceId = (pythonDecrypt(r.json.encrypted_config, 'herd-1') as { device_id: string }).device_id;
});
t.after(async () => { await f.d.stop(); });

t('forty heartbeats at once: the burst is answered, the rest get 429 with spread Retry-After; honoured, every one gets through', async () => {
  // Let the bucket fill up after the provisioning above (a burst is two seconds' worth).
  await new Promise((r) => setTimeout(r, 2200));
  const first = await Promise.all(Array.from({ length: 40 }, () => f.heartbeat({ device_id: deviceId, status: 'connected' })));
  const ok = first.filter((r) => r.status === 200).length;
  const refused = first.filter((r) => r.status === 429);
  assert.ok(ok >= 10 && ok <= 12, `about the burst (10) answered, got ${ok}`);
  assert.is(ok + refused.length, 40, 'nothing else, no 5xx');
  for (const r of refused) assert.equal(r.json, { error: 'too many device requests; try again later' });
  const waits = refused.map((r) => Number(r.headers.get('retry-after')));
  assert.ok(waits.every((w) => Number.isInteger(w) && w >= 1), `Retry-After in whole seconds: ${waits}`);
  assert.ok(Math.max(...waits) >= 5, `the refused are spread over several seconds: ${waits}`);
  // Each refused device comes back when it was told to: all are answered, none refused twice.
  const again = await Promise.all(waits.map(async (w) => {
    await new Promise((r) => setTimeout(r, w * 1000));
    return f.heartbeat({ device_id: deviceId, status: 'connected' });
  }));
  assert.equal(again.map((r) => r.status).filter((s) => s !== 200), [], 'every retry at its Retry-After answered');
});

t.run();
