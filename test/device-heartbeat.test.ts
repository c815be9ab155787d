import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import type { WgcpEvent } from '../src/events/bus';
import { deviceIdPrefix } from '../src/device/identifiers';
import { client, startTestDaemon } from './helpers/daemon';
import { unservedPorts } from './helpers/ports';
import { HEX64, SALT, deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const t = suiteNeeding('device API: heartbeat', ['python3:cryptography', 'wg']);
let f: DeviceFixture;
let nowMs = Date.parse('2026-11-22T11:00:00.000Z');
const events: WgcpEvent[] = [];

t.before(async () => {
  f = await deviceFixture({ options: { now: () => new Date(nowMs) } });
  f.d.daemon.app.events.subscribe((e) => events.push(e));
});
t.after(async () => { await f.d.stop(); });

async function newDevice(hwid: string): Promise<Record<string, string>> {
  const r = await f.provision(await f.newToken(), hwid);
  assert.is(r.status, 200);
  return pythonDecrypt(r.json.encrypted_config, hwid) as Record<string, string>;
}

// forwards_hash computed here from the literal canonical text DESIGN.md section 4 defines.
const sha = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

t('answers the current configuration, the same tunnel values the payload carried, and forwards_hash', async () => {
  const cfg = await newDevice('hb-basic');
  const r = await f.heartbeat({ device_id: cfg.device_id });
  assert.is(r.status, 200);
  // The contract's fields, and the extra IPv6 fields of a dual-stack server that older agents ignore.
  assert.equal(Object.keys(r.json).sort(), ['allowed_ips', 'allowed_ips6', 'device_id', 'dns', 'endpoint', 'forwards_hash', 'internal_ip', 'internal_ip6', 'preshared_key', 'private_key', 'server_pub', 'server_wg_ip', 'server_wg_ip6', 'status']);
  assert.is(r.json.status, 'ok');
  for (const k of ['device_id', 'internal_ip', 'private_key', 'preshared_key', 'server_pub', 'endpoint', 'server_wg_ip', 'dns', 'allowed_ips', 'internal_ip6', 'server_wg_ip6', 'allowed_ips6']) {
    assert.is(r.json[k], cfg[k], k);
  }
  assert.match(r.json.forwards_hash, HEX64);
  assert.is(r.json.forwards_hash, sha('[]'));
});

t('records status, state, tunnel_up, last_handshake, the source address and the time seen; ignores unknown fields', async () => {
  const cfg = await newDevice('hb-record');
  const r = await f.heartbeat({ device_id: cfg.device_id, status: 'connected', state: 'HEARTBEAT', tunnel_up: true, last_handshake: '2026-11-22T10:59:30+00:00', uptime_s: 99, nested: { x: 1 } });
  assert.is(r.status, 200);
  let d = (await f.api.get(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}`)).json;
  assert.is(d.status, 'connected');
  assert.is(d.state, 'HEARTBEAT');
  assert.is(d.tunnelUp, true);
  assert.is(d.lastHandshake, '2026-11-22T10:59:30.000Z');
  assert.is(d.lastSeenAt, '2026-11-22T11:00:00.000Z');
  assert.is(d.lastSourceAddress, '127.0.0.1');
  nowMs += 30_000;
  assert.is((await f.heartbeat({ device_id: cfg.device_id.toUpperCase(), tunnel_up: false })).status, 200, 'an upper-case UUID names the same device');
  d = (await f.api.get(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}`)).json;
  assert.is(d.tunnelUp, false);
  assert.is(d.status, 'connected', 'fields left out keep their value');
  assert.is(d.lastHandshake, '2026-11-22T10:59:30.000Z');
  assert.is(d.lastSeenAt, '2026-11-22T11:00:30.000Z');
});

async function expectError(body: unknown, status: number, text: string) {
  const r = await f.heartbeat(body);
  assert.is(r.status, status, `${JSON.stringify(body)} -> ${r.status} ${r.text}`);
  assert.equal(r.json, { error: text });
}

t('answers the contract errors with their exact texts: invalid device id, device not found, device is suspended', async () => {
  for (const id of [undefined, '', 'abc', 42, null, '8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1', '8f7e6d5c4b3a42918a7b6c5d4e3f2a1b']) {
    await expectError({ device_id: id }, 400, 'invalid device id');
  }
  await expectError({ device_id: '8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b' }, 404, 'device not found');
  const cfg = await newDevice('hb-suspended');
  assert.is((await f.api.put(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}`, { suspended: true })).status, 200);
  await expectError({ device_id: cfg.device_id, status: 'connected' }, 403, 'device is suspended');
  assert.is((await f.api.put(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}`, { suspended: false })).status, 200);
  assert.is((await f.heartbeat({ device_id: cfg.device_id })).status, 200, 'reinstated');
});

t('refuses status fields of the wrong type with a 400 that names them, and no "field" key', async () => {
  const cfg = await newDevice('hb-types');
  await expectError({ device_id: cfg.device_id, tunnel_up: 'yes' }, 400, 'tunnel_up must be true or false');
  await expectError({ device_id: cfg.device_id, status: 7 }, 400, 'status must be a string');
  await expectError({ device_id: cfg.device_id, state: 'x'.repeat(1025) }, 400, 'state must be at most 1024 characters');
  await expectError({ device_id: cfg.device_id, last_handshake: 'yesterday' }, 400, 'last_handshake must be an ISO 8601 timestamp');
  assert.is((await f.heartbeat({ device_id: cfg.device_id, last_handshake: null, status: null })).status, 200, 'null means not reported');
});

t('forwards_hash changes exactly when the device\'s forwards change', async () => {
  const cfg = await newDevice('hb-hash');
  const other = await newDevice('hb-hash-other');
  const hash = async () => (await f.heartbeat({ device_id: cfg.device_id })).json.forwards_hash as string;
  const empty = await hash();
  assert.is(await hash(), empty, 'stable without a change');
  // Four router ports nothing serves, ascending: the hash sorts by protocol, then listenPort.
  const [low, mine, others, udp] = unservedPorts(4);
  const a = await f.api.post(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}/forwards`, { protocol: 'tcp', listenPort: mine, targetPort: 80 });
  assert.is(a.status, 201, a.text);
  const one = await hash();
  assert.is(one, sha(`[{"protocol":"tcp","listenPort":${mine},"targetPort":80}]`));
  assert.is((await f.api.post(`/api/devices/${(await f.deviceOf(other.device_id)).id}/forwards`, { protocol: 'tcp', listenPort: others, targetPort: 80 })).status, 201);
  assert.is(await hash(), one, "another device's forward does not change it");
  assert.is((await f.api.post(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}/forwards`, { protocol: 'udp', listenPort: udp, targetPort: 5000 })).status, 201);
  const b = await f.api.post(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}/forwards`, { protocol: 'tcp', listenPort: low, targetPort: 443 });
  assert.is(b.status, 201);
  const three = await hash();
  assert.is(three, sha(`[{"protocol":"tcp","listenPort":${low},"targetPort":443},{"protocol":"tcp","listenPort":${mine},"targetPort":80},{"protocol":"udp","listenPort":${udp},"targetPort":5000}]`),
    'sorted by protocol then listenPort, keys in the fixed order');
  assert.is((await f.api.post(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}/rotate`, undefined)).status, 200);
  assert.is(await hash(), three, 'a key rotation is not a forward change');
  assert.is((await f.api.del(`/api/forwards/${b.json.id}`)).status, 204);
  assert.is.not(await hash(), three);
  assert.is((await f.api.get(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}`)).json.forwardsHash, await hash(), 'the admin view shows the same hash');
});

const wgPubkey = (hex: string) => execFileSync('wg', ['pubkey'], { input: Buffer.from(hex, 'hex').toString('base64') + '\n', encoding: 'utf8' }).trim();

t('a rotation gives new keys that the next heartbeat delivers', async () => {
  const cfg = await newDevice('hb-rotate');
  const rotated = await f.api.post(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}/rotate`, undefined);
  assert.is(rotated.status, 200);
  const r = (await f.heartbeat({ device_id: cfg.device_id })).json;
  assert.is.not(r.private_key, cfg.private_key);
  assert.is.not(r.preshared_key, cfg.preshared_key);
  assert.is(r.internal_ip, cfg.internal_ip);
  const peer = (await f.api.get(`/api/peers/${rotated.json.peerID}`)).json;
  assert.is(peer.publicKey, wgPubkey(r.private_key));
  assert.is((await f.api.post('/api/devices/8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b/rotate', undefined)).status, 404);
});

t('suspending takes the peer off, announces deviceSuspended once; reinstating brings the peer back', async () => {
  const cfg = await newDevice('hb-events');
  events.length = 0;
  const s = await f.api.put(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}`, { suspended: true });
  assert.is(s.json.suspended, true);
  const peer = (await f.api.get(`/api/peers/${s.json.peerID}`)).json;
  assert.equal([peer.enabled, peer.disabledReason], [false, 'suspended']);
  assert.is((await f.api.put(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}`, { suspended: true })).status, 200);
  const suspendedEvents = events.filter((e) => e.event === 'deviceSuspended');
  assert.is(suspendedEvents.length, 1, 'only the change is announced');
  assert.is(suspendedEvents[0].action, 7);
  // The device is named by its id's prefix: the whole id is a credential and never leaves in an event.
  assert.is((suspendedEvents[0].data.device as { uuidPrefix: string }).uuidPrefix, deviceIdPrefix(cfg.device_id));
  assert.not.ok(JSON.stringify(suspendedEvents[0]).includes(cfg.device_id), 'no whole device id in the event');
  const back = await f.api.put(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}`, { suspended: false });
  assert.is(back.json.suspended, false);
  assert.is((await f.api.get(`/api/peers/${s.json.peerID}`)).json.enabled, true);
});

t('reports are stored: a heartbeat just before a stop is there after the restart', async () => {
  const cfg = await newDevice('hb-restart');
  assert.is((await f.heartbeat({ device_id: cfg.device_id, status: 'stopping', state: 'LAST' })).status, 200);
  await f.d.stop();
  f.d = await startTestDaemon({ dataDir: f.d.dataDir, env: { SERVER_SALT: SALT }, options: { now: () => new Date(nowMs) } });
  f.api = client(f.d);
  const d = (await f.api.get(`/api/devices/${(await f.deviceOf(cfg.device_id)).id}`)).json;
  assert.equal([d.status, d.state], ['stopping', 'LAST']);
  assert.is((await f.heartbeat({ device_id: cfg.device_id })).status, 200);
});

t('serves only POST on the device paths', async () => {
  assert.is((await f.api.get('/api/v1/heartbeat')).status, 405);
});

t.run();
