// The heartbeat's two optional fields of wgcp's own (docs/device-api.md): `networks`, the LAN
// behind a device, set on its peer through the change runner only when they differ, by the
// rules of a peer's networks; and `interval`, the agent's heartbeat interval, stored and
// shown. A device that sends neither is answered as the contract says.
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import type { WgcpEvent } from '../src/events/bus';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const t = suiteNeeding('device API: heartbeat networks and interval', ['python3:cryptography']);
let f: DeviceFixture;
const events: WgcpEvent[] = [];

t.before(async () => {
  // The jobs are not scheduled: no change but the heartbeats' runs while a test counts them.
  f = await deviceFixture({ options: { events: { schedule: false } } });
  f.d.daemon.app.events.subscribe((e) => events.push(e));
});
t.after(async () => { await f.d.stop(); });

async function newDevice(hwid: string): Promise<{ deviceId: string; peerId: number }> {
  const r = await f.provision(await f.newToken(), hwid);
  assert.is(r.status, 200, r.text);
  const deviceId = (pythonDecrypt(r.json.encrypted_config, hwid) as Record<string, string>).device_id;
  return { deviceId, peerId: (await f.deviceOf(deviceId)).peerID };
}

const auditRows = (): number => f.d.daemon.app.store.db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get() as number;
const commits = (): number => f.d.daemon.app.runner.committed;
const networksOf = async (peerId: number): Promise<string[]> => (await f.api.get(`/api/peers/${peerId}`)).json.networks;

t('networks in a heartbeat become the networks of the device\'s peer, as one change with its event and audit line', async () => {
  const { deviceId, peerId } = await newDevice('net-set');
  const before = { commits: commits(), audit: auditRows() };
  events.length = 0;
  const r = await f.heartbeat({ device_id: deviceId, status: 'connected', networks: ['192.168.77.1/24', 'fd77::/64'] });
  assert.is(r.status, 200, r.text);
  assert.equal(await networksOf(peerId), ['192.168.77.0/24', 'fd77::/64'], 'stored as networks');
  assert.is(commits(), before.commits + 1);
  assert.is(auditRows(), before.audit + 1);
  const line = f.d.daemon.app.store.db.prepare('SELECT actor_kind AS kind, action FROM audit_log ORDER BY id DESC LIMIT 1').get();
  assert.equal(line, { kind: 'device', action: 'device.networks' });
  assert.ok(events.some((e) => e.event === 'peerUpdated'), 'peerUpdated announced');
});

t('a heartbeat that repeats the same networks, in any order, writes nothing: no change, no audit line', async () => {
  const { deviceId, peerId } = await newDevice('net-repeat');
  assert.is((await f.heartbeat({ device_id: deviceId, networks: ['192.168.78.0/24', 'fd78::/64'] })).status, 200);
  const before = { commits: commits(), audit: auditRows(), revision: f.d.daemon.app.store.revision() };
  for (const networks of [['192.168.78.0/24', 'fd78::/64'], ['fd78::/64', '192.168.78.0/24'], ['192.168.78.9/24', 'fd78::/64']]) {
    assert.is((await f.heartbeat({ device_id: deviceId, networks })).status, 200);
  }
  assert.is(commits(), before.commits, 'no change ran');
  assert.is(auditRows(), before.audit, 'no audit line');
  assert.is(f.d.daemon.app.store.revision(), before.revision, 'no row written');
  assert.equal(await networksOf(peerId), ['192.168.78.0/24', 'fd78::/64']);
});

t('a heartbeat without networks leaves them; an empty list clears them', async () => {
  const { deviceId, peerId } = await newDevice('net-clear');
  assert.is((await f.heartbeat({ device_id: deviceId, networks: ['192.168.79.0/24'] })).status, 200);
  assert.is((await f.heartbeat({ device_id: deviceId, status: 'connected' })).status, 200);
  assert.is((await f.heartbeat({ device_id: deviceId, networks: null })).status, 200);
  assert.equal(await networksOf(peerId), ['192.168.79.0/24']);
  assert.is((await f.heartbeat({ device_id: deviceId, networks: [] })).status, 200);
  assert.equal(await networksOf(peerId), []);
});

t('a set the rules refuse is 400 WGCP_DEVICE_NETWORKS_REFUSED naming networks and the rule; the peer keeps its networks', async () => {
  const { deviceId, peerId } = await newDevice('net-refused');
  const other = await newDevice('net-other');
  assert.is((await f.heartbeat({ device_id: other.deviceId, networks: ['192.168.81.0/24'] })).status, 200);
  assert.is((await f.heartbeat({ device_id: deviceId, networks: ['192.168.80.0/24'] })).status, 200);
  const before = commits();
  for (const [networks, why] of [
    [['10.44.0.0/16'], /networks refused: 10\.44\.0\.0\/16 overlaps the subnet 10\.44\.0\.1\/24 of server/],
    [['192.168.81.128/25'], /overlaps 192\.168\.81\.0\/24, behind peer/],
    [['0.0.0.0/0'], /default route/],
    [['192.168.82.0/24', '192.168.82.0/23'], /given too/],
    [['not-a-prefix'], /networks refused: /],
    ['192.168.82.0/24', /networks refused: /],
  ] as const) {
    const r = await f.heartbeat({ device_id: deviceId, networks });
    assert.is(r.status, 400, `${networks}: ${r.text}`);
    assert.is(r.json.code, 'WGCP_DEVICE_NETWORKS_REFUSED');
    assert.is(r.json.field, 'networks');
    assert.match(r.json.error, why);
  }
  assert.is(commits(), before, 'nothing ran');
  assert.equal(await networksOf(peerId), ['192.168.80.0/24']);
  assert.is((await f.heartbeat({ device_id: deviceId })).status, 200, 'the same device without the field is answered');
});

t('interval is stored and shown as heartbeatIntervalS; left out it stays; a bad one is a 400 naming interval', async () => {
  const { deviceId, peerId } = await newDevice('interval');
  const shown = async () => (await f.api.get(`/api/devices/${peerId}`)).json.heartbeatIntervalS;
  assert.is(await shown(), null, 'never reported');
  assert.is((await f.heartbeat({ device_id: deviceId, interval: 45 })).status, 200);
  assert.is(await shown(), 45);
  assert.is((await f.heartbeat({ device_id: deviceId })).status, 200);
  assert.is(await shown(), 45);
  for (const interval of [0, 86401, 2.5, '30']) {
    const r = await f.heartbeat({ device_id: deviceId, interval });
    assert.is(r.status, 400, String(interval));
    assert.is(r.json.code, 'WGCP_FIELD_INVALID');
    assert.is(r.json.field, 'interval');
  }
  assert.is((await f.api.get('/api/devices')).json.find((d: { id: number }) => d.id === peerId).heartbeatIntervalS, 45, 'in the list too');
});

t('what a device routes into its tunnel follows its peer\'s clientAllowedIPs (the router\'s LAN for a device with a LAN)', async () => {
  const { deviceId, peerId } = await newDevice('routes');
  const plain = (await f.heartbeat({ device_id: deviceId })).json;
  assert.is(plain.allowed_ips, '10.44.0.0/24', 'by default: the server\'s subnet, as before');
  const set = await f.api.put(`/api/peers/${peerId}`, { clientAllowedIPs: ['10.44.0.0/24', '192.168.60.0/24', plain.allowed_ips6, 'fd60::/64'] });
  assert.is(set.status, 200, set.text);
  const r = (await f.heartbeat({ device_id: deviceId })).json;
  assert.is(r.allowed_ips, '10.44.0.0/24, 192.168.60.0/24');
  assert.is(r.allowed_ips6, `${plain.allowed_ips6}, fd60::/64`);
  assert.is((await f.api.put(`/api/peers/${peerId}`, { clientAllowedIPs: 'full' })).status, 200);
  assert.is((await f.heartbeat({ device_id: deviceId })).json.allowed_ips, '0.0.0.0/0, ::/0', 'full: as allowInternet always answered');
});

t.run();
