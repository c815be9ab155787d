// A device with a LAN behind it: `networks` in the agent's configuration are told to the
// router in every heartbeat (with the interval), forwarding is turned on for them when the
// tunnel comes up, and a refusal by the router is said once while the heartbeats go on.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig, ConfigError } from '../src/config';
import { forwardingSwitches, enableForwarding } from '../src/forwarding';
import { heartbeatBody } from '../src/heartbeat';
import { harness } from './helpers/agent-harness';
import { DeviceServer } from './helpers/device-server';

const t = suite('agent: networks behind the device');
const base = { server_url: 'https://192.0.2.1:8443', token: 't', server_salt: 's', hwid: 'board-1' };
let server: DeviceServer;
t.before.each(async () => { server = new DeviceServer(); await server.start(); });
t.after.each(async () => { await server.close(); });

t('the configuration takes networks as a list of prefixes, and nothing else', () => {
  assert.equal(parseConfig({ ...base, networks: ['192.168.50.0/24', 'fd50::/64'] }).networks, ['192.168.50.0/24', 'fd50::/64']);
  assert.is(parseConfig(base).networks, null, 'left out: none told');
  assert.equal(parseConfig({ ...base, networks: [] }).networks, []);
  for (const bad of ['192.168.50.0/24', ['192.168.50.1'], ['192.168.50.0/33'], ['lan'], [5], Array(65).fill('10.0.0.0/8')]) {
    assert.throws(() => parseConfig({ ...base, networks: bad }), (e: Error) => e instanceof ConfigError && /"networks"/.test(e.message), JSON.stringify(bad).slice(0, 40));
  }
});

t('a heartbeat carries the interval always and the networks when some are configured', () => {
  const tunnel = { present: true, lastHandshake: null };
  assert.equal(heartbeatBody('id', 'HEARTBEAT', tunnel, 0, false, { networks: ['192.168.50.0/24'], interval: 30 }),
    { device_id: 'id', status: 'recovering', state: 'HEARTBEAT', tunnel_up: false, networks: ['192.168.50.0/24'], interval: 30 });
  assert.equal(heartbeatBody('id', 'HEARTBEAT', tunnel, 0, false, { networks: null, interval: 30 }),
    { device_id: 'id', status: 'recovering', state: 'HEARTBEAT', tunnel_up: false, interval: 30 });
});

t('forwarding is turned on for the families the networks use, and only where it is off', () => {
  assert.equal(forwardingSwitches(['192.168.50.0/24']), ['/proc/sys/net/ipv4/ip_forward']);
  assert.equal(forwardingSwitches(['fd50::/64', '10.0.0.0/8']), ['/proc/sys/net/ipv4/ip_forward', '/proc/sys/net/ipv6/conf/all/forwarding']);
  assert.equal(forwardingSwitches([]), []);
  const written: string[] = [];
  const problems = enableForwarding(['fd50::/64'], (f) => { written.push(f); throw Object.assign(new Error('no'), { code: 'EROFS' }); });
  const on = (() => { try { return require('node:fs').readFileSync('/proc/sys/net/ipv6/conf/all/forwarding', 'utf8').trim() === '1'; } catch { return false; } })();
  if (!on) assert.equal([written, problems], [['/proc/sys/net/ipv6/conf/all/forwarding'], ['/proc/sys/net/ipv6/conf/all/forwarding: EROFS']]);
  else assert.equal(written, [], 'already on: left alone');
});

t('the agent tells its networks in every heartbeat and turns on forwarding when the tunnel is up', async () => {
  const h = harness(server, server.addToken());
  h.writeConfig({ networks: ['192.168.50.0/24', 'fd50::/64'] });
  h.start();
  await h.waitFor(() => server.heartbeats.length >= 2, 'two heartbeats');
  await h.stop();
  for (const beat of server.heartbeats.filter((b) => b.status !== 'stopped')) {
    assert.equal([beat.networks, beat.interval], [['192.168.50.0/24', 'fd50::/64'], 1]);
  }
  assert.equal(h.forwarded, [['192.168.50.0/24', 'fd50::/64']]);
});

t('a refusal by the router is logged once as an error and the same beat goes again without the networks', async () => {
  server.refuseNetworks = '192.168.50.0/24 overlaps the router\'s own network 192.168.50.0/24 (on br-lan)';
  const h = harness(server, server.addToken());
  h.writeConfig({ networks: ['192.168.50.0/24'] });
  h.start();
  try {
    await h.waitFor(() => server.heartbeats.filter((b) => b.networks === undefined && b.status !== 'stopped').length >= 3, 'three answered beats');
  } finally { if (server.heartbeats.filter((b) => b.networks === undefined).length < 3) await h.stop(); }
  const errors = h.logs.map((l) => JSON.parse(l)).filter((l) => /refused the networks/.test(l.msg));
  assert.is(errors.length, 1, 'said once');
  assert.match(errors[0].error, /overlaps the router's own network/);
  assert.is(h.agent.current.last_heartbeat_ok, true, 'the heartbeats themselves are answered');
  server.refuseNetworks = null;
  const before = server.heartbeats.length;
  await h.waitFor(() => server.heartbeats.length >= before + 2, 'beats after the fix');
  await h.stop();
  assert.ok(h.logs.some((l) => /took the networks/.test(l)), 'says when the router takes them');
  assert.equal(server.heartbeats.at(-2)!.networks, ['192.168.50.0/24']);
});

t.run();
