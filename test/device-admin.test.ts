import type { SyncUndo } from '../src/kernel/server-sync';
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import dgram from 'node:dgram';
import net from 'node:net';
import type { ForwardChange, KernelPlane, PeerChange, PeerCounters, ServerChange, ServerKernelState, ServerState, PortForward } from '../src/kernel/plane';
import type { ServerFailure } from '../src/kernel/failed-servers';
import type { WgcpEvent } from '../src/events/bus';
import { runCommand as cli } from '../src/cli/main';
import { call, startTestDaemon } from './helpers/daemon';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

// The kernel seam as the daemon calls it: records each call and can be told to refuse, so
// the suite can show that forwards reach the seam inside the transaction and that a
// refusal leaves the database as it was. (The DNAT itself is proven in the netns suite.)
class SeamRecorder implements KernelPlane {
  readonly state = 'off' as const;
  forwards: ForwardChange[] = [];
  servers: ServerChange[] = [];
  reconciled: ServerState[] = [];
  refuse = false;
  async prepare(states: ServerState[]): Promise<void> { this.reconciled = states; }
  async applyServer(c: ServerChange): Promise<void> { this.servers.push(c); }
  async applyPeer(c: PeerChange): Promise<void> {
    if (this.refuse) throw new Error('kernel refused the peer');
    // Forwards that move with a peer ride in its change (one kernel change): recorded per forward.
    const after = new Map((c.forwards?.after ?? []).map((f) => [f.id, f]));
    for (const f of c.forwards?.before ?? []) this.forwards.push({ server: c.server, before: f, after: after.get(f.id) ?? null });
  }
  async applyForward(c: ForwardChange): Promise<void> {
    if (this.refuse) throw new Error('kernel refused the forward');
    this.forwards.push(c);
  }
  async syncServer(): Promise<SyncUndo> { return { server: null, peers: [], forwards: [], ids: [] }; }
  async peerCounters(): Promise<Map<string, PeerCounters>> { return new Map(); }
  isForeignLink(): boolean { return false; }
  serverState(): ServerKernelState { return { state: 'off' }; }
  failures(): ServerFailure[] { return []; }
  async close(): Promise<void> {}
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const t = suiteNeeding('device admin API: devices and port forwards', ['python3:cryptography']);
let f: DeviceFixture;
const kernel = new SeamRecorder();
const events: WgcpEvent[] = [];
let devicePort = 0;
t.before(async () => {
  devicePort = await freePort();
  f = await deviceFixture({ env: { WGCP_DEVICE_LISTEN: `127.0.0.1:${devicePort}` }, options: { kernel } });
  f.d.daemon.app.events.subscribe((e) => events.push(e));
});
t.after(async () => { await f.d.stop(); });

async function newDevice(hwid: string) {
  const r = await f.provision(await f.newToken(), hwid);
  const cfg = pythonDecrypt(r.json.encrypted_config, hwid) as Record<string, string>;
  return f.deviceOf(cfg.device_id);
}

const strip = (x: PortForward | null) => x && { protocol: x.protocol, listenPort: x.listenPort, targetIp: x.targetIp, targetPort: x.targetPort, serverId: x.serverId };

t('lists and reads devices by their id (their peer\'s); a device_id, or any other id, is 404', async () => {
  const d = await newDevice('adm-list');
  const list = (await f.api.get('/api/devices')).json;
  assert.ok(list.some((x: { id: number }) => x.id === d.id));
  assert.is(d.id, d.peerID);
  assert.is((await f.api.get(`/api/devices/${d.id}`)).json.uuid, d.uuid);
  assert.is(d.serverID, f.serverId);
  assert.is(d.suspended, false);
  for (const bad of ['0', 'abc', '999999', d.uuid, '8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b']) {
    const r = await f.api.get(`/api/devices/${bad}`);
    assert.equal([r.status, r.json.error], [404, 'device not found']);
  }
  assert.is((await call(f.d.url, 'GET', '/api/devices')).status, 401);
});

t('PUT needs suspended as true or false', async () => {
  const d = await newDevice('adm-put');
  for (const body of [{}, { suspended: 'yes' }, { suspended: 1 }]) {
    const r = await f.api.put(`/api/devices/${d.id}`, body);
    assert.is(r.status, 400);
    assert.is(r.json.field, 'suspended');
  }
});

t('adds a forward through the kernel seam with the device tunnel address as target, and removes it the same way', async () => {
  const d = await newDevice('adm-fwd');
  kernel.forwards = [];
  const r = await f.api.post(`/api/devices/${d.id}/forwards`, { protocol: 'tcp', listenPort: 2222, targetPort: 22 });
  assert.is(r.status, 201);
  assert.equal({ ...r.json, createdAt: undefined }, { id: r.json.id, deviceID: d.id, protocol: 'tcp', listenPort: 2222, targetPort: 22, createdAt: undefined });
  assert.is(kernel.forwards.length, 1);
  assert.is(kernel.forwards[0].server.id, f.serverId);
  assert.equal([kernel.forwards[0].before, strip(kernel.forwards[0].after)], [null, { protocol: 'tcp', listenPort: 2222, targetIp: d.ip, targetPort: 22, serverId: f.serverId }]);
  const listed = (await f.api.get(`/api/devices/${d.id}/forwards`)).json;
  assert.equal(listed.map((x: { id: number }) => x.id), [r.json.id]);
  assert.is((await f.api.post(`/api/devices/${d.id}/forwards`, { protocol: 'udp', listenPort: 2223 })).json.targetPort, 2223, 'targetPort defaults to listenPort');
  kernel.forwards = [];
  assert.is((await f.api.del(`/api/forwards/${r.json.id}`)).status, 204);
  assert.equal([strip(kernel.forwards[0].before)?.listenPort, kernel.forwards[0].after], [2222, null]);
  assert.is((await f.api.del(`/api/forwards/${r.json.id}`)).status, 404);
  assert.is((await f.api.del('/api/forwards/abc')).status, 404);
});

t('refuses bad forwards with a 400 that names the field; a router port is unique per protocol across the router', async () => {
  const d = await newDevice('adm-valid');
  const other = await newDevice('adm-valid-2');
  const bad = async (body: unknown, field: string, device = d.id) => {
    const r = await f.api.post(`/api/devices/${device}/forwards`, body);
    assert.is(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.is(r.json.field, field);
  };
  await bad({ listenPort: 80 }, 'protocol');
  await bad({ protocol: 'icmp', listenPort: 80 }, 'protocol');
  await bad({ protocol: 'tcp' }, 'listenPort');
  for (const p of [0, 65536, '80', 80.5, -1]) await bad({ protocol: 'tcp', listenPort: p }, 'listenPort');
  for (const p of [0, 65536, 'x']) await bad({ protocol: 'tcp', listenPort: 8000, targetPort: p }, 'targetPort');
  assert.is((await f.api.post(`/api/devices/${d.id}/forwards`, { protocol: 'tcp', listenPort: 8000, targetPort: 80 })).status, 201);
  await bad({ protocol: 'tcp', listenPort: 8000, targetPort: 81 }, 'listenPort', other.id);
  await bad({ protocol: 'tcp', listenPort: 8000, targetPort: 81 }, 'listenPort');
  assert.is((await f.api.post(`/api/devices/${other.id}/forwards`, { protocol: 'udp', listenPort: 8000 })).status, 201, 'the same port on the other protocol is free');
  await bad({ protocol: 'udp', listenPort: 51820 }, 'listenPort', other.id);
  assert.is((await f.api.post('/api/devices/8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b/forwards', { protocol: 'tcp', listenPort: 9 })).status, 404);
  assert.is((await f.api.get('/api/devices/nope/forwards')).status, 404);
});

t('a forward may not take a port the router itself serves: wgcpd\'s listeners, a TCP service, a UDP service (409 naming the port)', async () => {
  const d = await newDevice('adm-serving');
  const refused = async (protocol: string, port: number) => {
    const r = await f.api.post(`/api/devices/${d.id}/forwards`, { protocol, listenPort: port });
    assert.is(r.status, 409, `${protocol}/${port}: ${r.text}`);
    assert.is(r.json.field, 'listenPort');
    assert.match(r.json.code, /^WGCP_FORWARD_PORT_(OWN|ROUTER)$/);
    assert.match(r.json.error, `${protocol}/${port}`);
  };
  await refused('tcp', devicePort);
  await refused('tcp', Number(new URL(f.d.url).port));
  const tcp = net.createServer().listen(0, '0.0.0.0');
  await new Promise((r) => tcp.once('listening', r));
  const udp = dgram.createSocket('udp4');
  const udpPort = 20000 + Math.floor(Math.random() * 5000);
  await new Promise<void>((r) => udp.bind(udpPort, '0.0.0.0', () => r()));
  try {
    await refused('tcp', (tcp.address() as net.AddressInfo).port);
    await refused('udp', udpPort);
  } finally {
    tcp.close();
    udp.close();
  }
  assert.is((await f.api.post(`/api/devices/${d.id}/forwards`, { protocol: 'udp', listenPort: udpPort })).status, 201, 'free again once the service stops');
});

t('a kernel refusal leaves nothing stored: no forward, no device, the token still unused', async () => {
  const d = await newDevice('adm-refuse');
  kernel.refuse = true;
  try {
    const r = await f.api.post(`/api/devices/${d.id}/forwards`, { protocol: 'tcp', listenPort: 3333 });
    assert.is(r.status, 500);
    assert.equal((await f.api.get(`/api/devices/${d.id}/forwards`)).json, []);
    const token = await f.newToken();
    const p = await f.provision(token, 'adm-refused-device');
    assert.equal([p.status, p.json], [500, { error: 'provisioning failed', code: 'WGCP_PROVISIONING_FAILED' }]);
    assert.not.ok((await f.api.get('/api/devices')).json.some((x: { hwid: string }) => x.hwid === 'adm-refused-device'));
    kernel.refuse = false;
    assert.is((await f.provision(token, 'adm-refused-device')).status, 200, 'the token was not burnt');
  } finally {
    kernel.refuse = false;
  }
});

t('moving the peer to another address moves its forwards; deleting the peer removes them', async () => {
  const d = await newDevice('adm-follow');
  const fw = (await f.api.post(`/api/devices/${d.id}/forwards`, { protocol: 'tcp', listenPort: 4444, targetPort: 44 })).json;
  kernel.forwards = [];
  assert.is((await f.api.put(`/api/peers/${d.peerID}`, { ip: '10.44.0.200' })).status, 200);
  assert.is(kernel.forwards.length, 1);
  assert.equal([strip(kernel.forwards[0].before)?.targetIp, strip(kernel.forwards[0].after)?.targetIp], [d.ip, '10.44.0.200']);
  kernel.forwards = [];
  assert.is((await f.api.del(`/api/peers/${d.peerID}`)).status, 204);
  assert.equal(kernel.forwards.map((c) => [c.before?.id, c.after]), [[fw.id, null]]);
  assert.is((await f.api.get(`/api/devices/${d.id}`)).status, 404, 'the device went with its peer');
  assert.is((await f.api.del(`/api/forwards/${fw.id}`)).status, 404);
});

t('DELETE /api/devices/{id} removes the device, its peer and its forwards, with the peerDeleted event', async () => {
  const d = await newDevice('adm-delete');
  await f.api.post(`/api/devices/${d.id}/forwards`, { protocol: 'udp', listenPort: 5555 });
  const total = (await f.api.get('/api/stats')).json.totalDevices;
  events.length = 0;
  kernel.forwards = [];
  assert.is((await f.api.del(`/api/devices/${d.id}`)).status, 204);
  assert.is((await f.api.get(`/api/peers/${d.peerID}`)).status, 404);
  assert.is((await f.api.get(`/api/devices/${d.id}`)).status, 404);
  assert.is(kernel.forwards.length, 1);
  assert.ok(events.some((e) => e.event === 'peerDeleted'));
  assert.is((await f.api.get('/api/stats')).json.totalDevices, total - 1);
  assert.is((await f.api.del(`/api/devices/${d.id}`)).status, 404);
  assert.is((await call(f.d.url, 'POST', '/api/v1/heartbeat', { device_id: d.uuid })).status, 404);
});

t('a device peer keeps the keys the daemon made: a publicKey from outside is refused', async () => {
  const d = await newDevice('adm-key');
  const peer = (await f.api.get(`/api/servers/${f.serverId}/peers`)).json.find((p: { ip: string }) => p.ip === d.ip);
  const { generateKeyPair } = await import('../src/wg/keys');
  const r = await f.api.put(`/api/peers/${peer.id}`, { publicKey: generateKeyPair().publicKey });
  assert.is(r.status, 400);
  assert.is(r.json.field, 'publicKey');
  assert.ok(r.json.error.includes('/rotate'));
  assert.is((await f.api.get(`/api/peers/${peer.id}`)).json.publicKey, peer.publicKey);
  assert.is((await f.heartbeat({ device_id: d.uuid })).status, 200);
});

t('a server may not take a UDP port that a forward already holds', async () => {
  const d = await newDevice('adm-port');
  assert.is((await f.api.post(`/api/devices/${d.id}/forwards`, { protocol: 'udp', listenPort: 40123 })).status, 201);
  const r = await f.api.post('/api/servers', { name: 'clash', endpoint: '127.0.0.1:40123', mode: 'forward' });
  assert.is(r.status, 400);
  assert.is(r.json.field, 'listenPort');
  const u = await f.api.put(`/api/servers/${f.serverId}`, { listenPort: 40123 });
  assert.is(u.status, 400);
  assert.is(u.json.field, 'listenPort');
});

t('/api/stats counts real devices', async () => {
  const before = (await f.api.get('/api/stats')).json.totalDevices;
  assert.is(before, (await f.api.get('/api/devices')).json.length);
  await newDevice('adm-count');
  assert.is((await f.api.get('/api/stats')).json.totalDevices, before + 1);
});

t('a server update hands the kernel its forwards; a restart reconciles them', async () => {
  const d = await newDevice('adm-server');
  await f.api.post(`/api/devices/${d.id}/forwards`, { protocol: 'tcp', listenPort: 6666 });
  kernel.servers = [];
  assert.is((await f.api.put(`/api/servers/${f.serverId}`, { name: 'renamed' })).status, 200);
  assert.ok(kernel.servers[0].forwards.some((x) => x.listenPort === 6666 && x.targetIp === d.ip));
  const again = new SeamRecorder();
  const second = await startTestDaemon({ dataDir: f.d.dataDir, env: { WGCP_LISTEN: '127.0.0.1:0' }, options: { kernel: again } });
  try {
    const state = again.reconciled.find((s) => s.server.id === f.serverId)!;
    const stored = (await f.api.get('/api/devices')).json.length;
    assert.ok(stored > 0);
    assert.ok(state.forwards.some((x) => x.listenPort === 6666 && x.targetIp === d.ip && x.protocol === 'tcp'));
  } finally {
    await second.stop();
  }
});

t('wgcp regtoken create | list | revoke work on the database beside the running daemon', async () => {
  let out = '';
  const run = (...argv: string[]) => { out = ''; return cli(['--data-dir', f.d.dataDir, ...argv], (s) => { out += s; }); };
  // Each command ends before the next is run: `await run(...)` below.
  assert.is(await run('regtoken', 'create', '--server', String(f.serverId)), 0);
  const token = out.trim();
  assert.match(token, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is((await f.provision(token, 'cli-device')).status, 200);
  assert.is(await run('regtoken', 'list', '--server', String(f.serverId), '--json'), 0);
  const row = (JSON.parse(out) as { token: string; state: string }[]).find((x) => x.token === token)!;
  assert.is(row.state, 'used');
  assert.is(await run('regtoken', 'create', '--server', String(f.serverId)), 0);
  const second = out.trim();
  assert.is(await run('regtoken', 'revoke', second), 0);
  assert.is((await f.provision(second, 'cli-device-2')).status, 403);
  assert.is(await run('regtoken', 'create'), 2, '--server is required');
  assert.is(await run('regtoken', 'create', '--server', '999'), 2, 'unknown server');
  assert.is(await run('regtoken', 'revoke', second), 2, 'already revoked');
});

t.run();
