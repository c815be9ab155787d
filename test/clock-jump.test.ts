// A wall clock that jumps (a year ahead, then back) is an event to log and wait out, not
// time that passed: peer expiry and the monthly reset act on it only once it is confirmed
// (it kept step with the monotonic clock for WGCP_CLOCK_CONFIRM_S). A real wgcpd whose
// clock a test file moves (WGCP_TEST_CLOCK), as a bad NTP answer would.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, tempDir } from './helpers/daemon';
import { spawnDaemon, type DaemonProcess } from './helpers/process';
import { eventually } from './helpers/receiver';

const t = suite('a jump of the wall clock is waited out by expiry and the monthly reset');

const YEAR_MS = 365 * 24 * 3600 * 1000;
const MONTH_STARTED = 'usage month started: usage reset to zero';
const started: DaemonProcess[] = [];

interface Router { d: DaemonProcess; clockFile: string; key: string; peerId: number }

async function router(confirmS: number): Promise<Router> {
  const dataDir = tempDir();
  const clockFile = path.join(tempDir(), 'offset');
  fs.writeFileSync(clockFile, '0');
  const d = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off', WGCP_USAGE_INTERVAL_S: '1', WGCP_LOG_LEVEL: 'debug', WGCP_TEST_CLOCK: clockFile, WGCP_CLOCK_CONFIRM_S: String(confirmS) });
  started.push(d);
  const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  const headers = { 'wg-control-key': key };
  assert.is((await call(d.url, 'POST', '/api/servers', { name: 'home', endpoint: '127.0.0.1:51820', mode: 'forward' }, headers)).status, 201);
  const peer = await call(d.url, 'POST', '/api/servers/1/peers', { name: 'guest', expiresAt: new Date(Date.now() + 24 * 3600 * 1000).toISOString() }, headers);
  assert.is(peer.status, 201, peer.text);
  const r = { d, clockFile, key, peerId: peer.json.id };
  // The usage month is recorded by the first cycle, on the clock as it is.
  await eventually('a usage cycle', async () => ((await usageCycles(r)) >= 1 ? true : undefined));
  return r;
}

const get = (r: Router, p: string) => call(r.d.url, 'GET', p, undefined, { 'wg-control-key': r.key });
/** Lines logged from index `from` on with this message. */
const linesAfter = (r: Router, from: number, msg: string) => r.d.lines.slice(from).filter((l) => l.msg === msg);
const usageCycles = async (r: Router) => Number(/^wgcp_usage_cycle_duration_seconds_count (\d+)/m.exec((await get(r, '/metrics')).text)?.[1] ?? 0);

t.after(async () => {
  for (const d of started) { d.child.kill('SIGTERM'); await d.exited; }
});

t('a year ahead and back: logged, shown in /healthz, and the peer and the month are as they were', async () => {
  const r = await router(3600);
  const from = r.d.lines.length;
  fs.writeFileSync(r.clockFile, String(YEAR_MS));
  const jumped = await eventually('the jump logged', () => linesAfter(r, from, 'the wall clock jumped: peer expiry and the monthly reset wait until it is confirmed')[0]);
  assert.ok(Math.abs(jumped.offsetS - YEAR_MS / 1000) < 60, `offset ${jumped.offsetS} s`);
  // The calendar ran at once on the clock before the jump, and usage cycles went on.
  await eventually('a calendar run during the jump', () => linesAfter(r, from, 'calendar jobs ran').find((l) => l.clockJumpWaited === true));
  const cycles = await usageCycles(r);
  await eventually('two usage cycles after the jump', async () => ((await usageCycles(r)) >= cycles + 2 ? true : undefined));
  const health = await call(r.d.url, 'GET', '/healthz');
  assert.is(health.json.status, 'degraded');
  assert.match(health.json.reasons.join('\n'), /the wall clock jumped \+8760 h at .*: peer expiry and the monthly reset wait until it is confirmed/);
  assert.is((await get(r, `/api/peers/${r.peerId}`)).status, 200, 'the peer did not expire');
  assert.equal(linesAfter(r, from, MONTH_STARTED), [], 'the month was not reset');

  fs.writeFileSync(r.clockFile, '0');
  await eventually('the way back logged', () => linesAfter(r, from, 'the wall clock is back from its jump: nothing acted on it')[0]);
  assert.not.match(((await call(r.d.url, 'GET', '/healthz')).json.reasons ?? []).join('\n'), /clock/);
  assert.is((await get(r, `/api/peers/${r.peerId}`)).status, 200);
  assert.equal(linesAfter(r, from, MONTH_STARTED), []);
});

t('a jump that keeps step for the confirmation time is acted on: the peer expires and the month starts', async () => {
  const r = await router(2);
  const from = r.d.lines.length;
  fs.writeFileSync(r.clockFile, String(YEAR_MS));
  await eventually('the jump logged', () => linesAfter(r, from, 'the wall clock jumped: peer expiry and the monthly reset wait until it is confirmed')[0]);
  assert.is((await get(r, `/api/peers/${r.peerId}`)).status, 200, 'not before it is confirmed');
  await eventually('the confirmation logged', () => linesAfter(r, from, 'the wall clock jump is confirmed: peer expiry and the monthly reset follow the wall clock again')[0]);
  await eventually('the calendar on the new clock', () => linesAfter(r, from, 'calendar jobs ran').find((l) => l.clockJumpWaited === false));
  assert.is((await get(r, `/api/peers/${r.peerId}`)).status, 404, 'expired once the jump was confirmed');
  assert.is(linesAfter(r, from, MONTH_STARTED).length, 1);
  assert.not.match(((await call(r.d.url, 'GET', '/healthz')).json.reasons ?? []).join('\n'), /clock/);
});

t.run();
