import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { displayOf } from '../src/machine';
import { loadRecord, STATE_FILE } from '../src/persist';
import { harness } from './helpers/agent-harness';
import { DeviceServer, openWithNode } from './helpers/device-server';

const t = suite('agent lifecycle against a device API');
let server: DeviceServer;
t.before.each(async () => { server = new DeviceServer(); await server.start(); });
t.after.each(async () => { await server.close(); });

const hb = () => server.heartbeats.length;
const states = (logs: string[]) => logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'state').map((l) => l.to);

t('provisions, brings the tunnel up with the decrypted configuration and heartbeats', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 3, 'three heartbeats');
  const rec = h.agent.current;
  const device = server.device(rec.device_id!);
  assert.equal(h.tunnel.ups, [device.config]);
  assert.equal(states(h.logs).slice(0, 5), ['APP_INIT', 'PROVISION', 'TUNNEL_UP', 'HEARTBEAT']);
  assert.equal(server.heartbeats[0], { device_id: rec.device_id, status: 'connected', state: 'HEARTBEAT', tunnel_up: true, last_handshake: h.tunnel.status.lastHandshake!.toISOString(), interval: 1 });
  assert.is(displayOf(rec, true), 'connected');
  await h.stop();
});

t('keeps the configuration encrypted at rest, in a 0600 file', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  await h.stop();
  const file = path.join(h.stateDir, STATE_FILE);
  const text = fs.readFileSync(file, 'utf8');
  const { record } = loadRecord(h.stateDir);
  const device = server.device(record.device_id!);
  assert.not.ok(text.includes(device.config.private_key) || text.includes(device.config.preshared_key));
  assert.equal(JSON.parse(openWithNode('board-0042', server.salt, record.sealed_config!)), device.config);
  assert.is(fs.statSync(file).mode & 0o777, 0o600);
});

t('sends heartbeats one interval apart', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'first heartbeat');
  const first = Date.now();
  await h.waitFor(() => hb() >= 4, 'three more');
  const perBeat = (Date.now() - first) / 3; // FastClock(10): 1 s of agent time is 100 ms
  assert.ok(perBeat >= 85 && perBeat < 400, `${perBeat} ms per heartbeat`);
  await h.stop();
});

t('agents that come up together spread their heartbeats over a whole interval from the second one on', async () => {
  const { secondBeatDelayMs } = await import('../src/agent');
  assert.is(secondBeatDelayMs(60_000, 0), 30_000);
  assert.is(secondBeatDelayMs(60_000, 0.5), 60_000);
  assert.is(secondBeatDelayMs(60_000, 0.999), 89_940);
  assert.ok(secondBeatDelayMs(60_000, 0.99999999) < 90_000, 'a random number just under 1 stays inside the interval');
  // 300 agents restarted at once, their random numbers spread evenly: second heartbeats fall into
  // every tenth of the interval and nowhere else.
  const phases = Array.from({ length: 300 }, (_, i) => Math.floor((secondBeatDelayMs(60_000, i / 300 + 0.9 / 300) - 30_000) / 6000));
  assert.equal([...new Set(phases)].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

t('resumes after a restart from the stored configuration without spending a token', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  const id = h.agent.current.device_id;
  await h.stop();
  h.start();
  const before = hb();
  await h.waitFor(() => hb() >= before + 2, 'heartbeats after restart');
  assert.is(server.provisionCalls, 1);
  assert.is(h.agent.current.device_id, id);
  assert.is(h.tunnel.ups.length, 2);
  assert.equal(h.tunnel.ups[1], h.tunnel.ups[0]);
  await h.stop();
});

t('rebuilds the tunnel when the port forwards change', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 2, 'heartbeats');
  server.device(h.agent.current.device_id!).forwards = '[{"protocol":"tcp","listenPort":8080,"targetPort":80}]';
  await h.waitFor(() => h.tunnel.ups.length === 2, 'a rebuild');
  await h.waitFor(() => h.agent.current.state === 'HEARTBEAT', 'back in HEARTBEAT');
  assert.ok(states(h.logs).includes('TUNNEL_REBUILD'));
  const n = h.tunnel.ups.length;
  await h.waitFor(() => hb() >= 6, 'more heartbeats');
  assert.is(h.tunnel.ups.length, n, 'no further rebuild while nothing changes');
  await h.stop();
});

t('rebuilds with rotated keys and keeps them, encrypted, across a restart', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  const device = server.device(h.agent.current.device_id!);
  device.config = { ...device.config, private_key: 'ab'.repeat(32), internal_ip: '10.66.0.7' };
  await h.waitFor(() => h.tunnel.ups.length === 2, 'a rebuild');
  assert.is(h.tunnel.ups[1].private_key, 'ab'.repeat(32));
  await h.waitFor(() => h.agent.current.state === 'HEARTBEAT', 'HEARTBEAT');
  await h.stop();
  const sealed = loadRecord(h.stateDir).record.sealed_config!;
  assert.is(JSON.parse(openWithNode('board-0042', server.salt, sealed)).internal_ip, '10.66.0.7');
  h.start();
  await h.waitFor(() => h.tunnel.ups.length === 3, 'tunnel after restart');
  assert.equal(h.tunnel.ups[2], h.tunnel.ups[1]);
  assert.is(server.provisionCalls, 1);
  await h.stop();
});

t('ignores unknown answer fields', async () => {
  server.extraAnswerFields = { firmware: { channel: 'beta' }, mtu: 1280 };
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 3, 'heartbeats');
  assert.is(h.tunnel.ups.length, 1);
  assert.is(h.agent.current.last_heartbeat_ok, true);
  await h.stop();
});

t('clears a stored configuration it cannot decrypt and provisions again', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  await h.stop();
  const file = path.join(h.stateDir, STATE_FILE);
  const rec = JSON.parse(fs.readFileSync(file, 'utf8'));
  const bytes = Buffer.from(rec.sealed_config, 'base64');
  bytes[20] ^= 0xff;
  fs.writeFileSync(file, JSON.stringify({ ...rec, sealed_config: bytes.toString('base64') }));
  h.writeConfig({ token: server.addToken() }); // the first token is spent: an operator puts in a new one
  h.start();
  await h.waitFor(() => server.provisionCalls === 2 && h.agent.current.state === 'HEARTBEAT', 'fresh provisioning');
  assert.ok(h.logs.some((l) => l.includes('stored configuration cannot be decrypted')));
  assert.is(server.devices.size, 1, 'the same hwid stays one device');
  await h.stop();
});

t('starts fresh from a corrupted state file', async () => {
  const h = harness(server, server.addToken());
  fs.mkdirSync(h.stateDir, { recursive: true });
  fs.writeFileSync(path.join(h.stateDir, STATE_FILE), '{"version":1,"sta');
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  assert.is(server.provisionCalls, 1);
  assert.ok(h.logs.some((l) => l.includes('unreadable')));
  await h.stop();
});

t('retries provisioning from APP_RETRY until the server answers', async () => {
  server.failNext = 4; // the first round's 3 attempts and the first of the next
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => h.agent.current.state === 'APP_RETRY', 'APP_RETRY');
  assert.is(displayOf(h.agent.current, true), 'failed');
  await h.waitFor(() => hb() >= 1, 'a heartbeat after recovery');
  assert.equal(states(h.logs).slice(0, 6), ['APP_INIT', 'PROVISION', 'APP_RETRY', 'APP_INIT', 'PROVISION', 'TUNNEL_UP']);
  assert.is(h.agent.current.failures, 0);
  await h.stop();
});

t('waits in APP_RETRY on a spent token and recovers when a new one is put in the file', async () => {
  const spent = server.addToken();
  server.tokens.get(spent)!.used = true;
  const h = harness(server, spent);
  h.start();
  await h.waitFor(() => h.agent.current.failures >= 2, 'two failed rounds');
  assert.is(server.provisionCalls, 2, 'a 400 is not retried within a round');
  assert.match(h.agent.current.last_error!, 'token already used');
  h.writeConfig({ token: server.addToken() });
  await h.waitFor(() => hb() >= 1, 'a heartbeat', 15000);
  await h.stop();
});

t('logs a failed heartbeat and goes on; recovers when the server answers again', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  server.failNext = 3;
  await h.waitFor(() => h.logs.some((l) => l.includes('heartbeat failed') && l.includes('HTTP 500')), 'a failed heartbeat logged');
  const after = hb();
  await h.waitFor(() => hb() > after && h.agent.current.last_heartbeat_ok === true, 'an answered heartbeat');
  assert.is(h.agent.current.state, 'HEARTBEAT');
  await h.stop();
});

t('keeps heartbeating while suspended, and reconnects when reinstated', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  const device = server.device(h.agent.current.device_id!);
  device.suspended = true;
  await h.waitFor(() => h.agent.current.last_heartbeat_ok === false, 'refused heartbeat');
  assert.match(h.agent.current.last_error!, 'device is suspended');
  device.suspended = false;
  await h.waitFor(() => h.agent.current.last_heartbeat_ok === true, 'answered again');
  await h.stop();
});

t('does not rewrite the state file for the same failure again (flash wear)', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  server.device(h.agent.current.device_id!).suspended = true;
  await h.waitFor(() => h.agent.current.last_heartbeat_ok === false, 'refused heartbeat');
  const file = path.join(h.stateDir, STATE_FILE);
  const written = fs.statSync(file).mtimeMs;
  const refused = hb();
  await h.waitFor(() => hb() >= refused + 3, 'three more refused heartbeats');
  assert.is(fs.statSync(file).mtimeMs, written);
  await h.stop();
});

t('does not rewrite the state file for answered heartbeats that change nothing else (written once an hour at most)', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 2 && h.agent.current.last_heartbeat_ok === true, 'answered heartbeats');
  const file = path.join(h.stateDir, STATE_FILE);
  const written = fs.readFileSync(file, 'utf8');
  const mtime = fs.statSync(file).mtimeMs;
  const answered = hb();
  await h.waitFor(() => hb() >= answered + 3, 'three more answered heartbeats');
  assert.is(fs.statSync(file).mtimeMs, mtime, 'not written again');
  assert.is(fs.readFileSync(file, 'utf8'), written);
  assert.ok(h.agent.current.last_heartbeat! > JSON.parse(written).last_heartbeat, 'the time is kept in memory meanwhile');
  // A change of anything else is written at once, the newest heartbeat time with it.
  server.device(h.agent.current.device_id!).suspended = true;
  await h.waitFor(() => JSON.parse(fs.readFileSync(file, 'utf8')).last_heartbeat_ok === false, 'the refusal written');
  await h.stop();
});

t('writes the last heartbeat it had when it stops (one write), so that status tells it after the stop', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 2 && h.agent.current.last_heartbeat_ok === true, 'answered heartbeats');
  const file = path.join(h.stateDir, STATE_FILE);
  const answered = hb();
  await h.waitFor(() => hb() >= answered + 2, 'two more answered heartbeats');
  assert.ok(h.agent.current.last_heartbeat! > JSON.parse(fs.readFileSync(file, 'utf8')).last_heartbeat, 'held back by the hourly rule meanwhile');
  await h.stop();
  assert.is(JSON.parse(fs.readFileSync(file, 'utf8')).last_heartbeat, h.agent.current.last_heartbeat);
});

t('retries a tunnel that fails to come up', async () => {
  const h = harness(server, server.addToken());
  h.tunnel.failUps = 2;
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  assert.is(h.logs.filter((l) => l.includes('tunnel could not be brought up')).length, 2);
  await h.stop();
});

t('says it stops (status stopped) and takes the tunnel down on stop', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  await h.stop();
  assert.is(server.heartbeats[server.heartbeats.length - 1].status, 'stopped');
  assert.ok(h.tunnel.downs >= 1);
  assert.is(h.tunnel.status.present, false);
});

t('a stop report the router throttles with a short Retry-After is sent once more, and one with a long wait is not', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => hb() >= 1, 'a heartbeat');
  server.throttleNext = 1;
  await h.stop();
  assert.is(server.heartbeats[server.heartbeats.length - 1].status, 'stopped');
  const again = harness(server, server.addToken());
  again.start();
  await again.waitFor(() => hb() >= 3, 'heartbeats of a second agent');
  const before = hb();
  server.throttleNext = 1;
  server.throttleRetryAfterS = 600;
  await again.stop();
  assert.is(hb(), before, 'no second try when the router asks for a long wait');
  assert.ok(again.logs.some((l) => l.includes('could not report the stop')));
});

t('never writes a key or the token into its log', async () => {
  const token = server.addToken();
  const h = harness(server, token);
  h.start();
  await h.waitFor(() => hb() >= 2, 'heartbeats');
  await h.stop();
  const cfg = server.device(loadRecord(h.stateDir).record.device_id!).config;
  const all = h.logs.join('');
  for (const secret of [token, server.salt, cfg.private_key, cfg.preshared_key]) assert.not.ok(all.includes(secret));
});

t('names its device by the first 8 characters of the device_id in the log, never the whole (it is a credential)', async () => {
  const h = harness(server, server.addToken());
  h.start();
  await h.waitFor(() => h.logs.some((l) => l.includes('"provisioned"')), 'provisioned');
  await h.stop();
  h.start(); // a restart logs the device it resumes
  await h.waitFor(() => h.logs.filter((l) => l.includes('agent started')).length === 2, 'the restart');
  await h.stop();
  const id = loadRecord(h.stateDir).record.device_id!;
  const named = h.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'provisioned' || l.msg === 'agent started');
  assert.equal(named.map((l) => l.device), [null, id.slice(0, 8), id.slice(0, 8)]);
  assert.not.ok(h.logs.join('').includes(id));
});

t.run();
