// The device's side of the contract on a real router: wgcpd (WGCP_KERNEL=on) in a "router"
// namespace, a device namespace that builds its WireGuard tunnel only from the decrypted
// provisioning payload and the heartbeat answers (as the agent does), and an "outside"
// namespace that reaches the device through a port forward (DNAT) on the router.
import crypto from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { linkNamespaces, Netns } from './helpers/netns';
import { nsRequest, startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { reach, reachBeside, reachSoon, serveTcp, WgClient } from './helpers/wg-client';
import { SALT, pythonDecrypt } from './device-support';
import { deviceByUuid } from './helpers/device-lookup';

const t = suite('device API on a real router: payload-built tunnel, DNAT forwards, rotation, suspension');

const ENDPOINT_IP = '192.0.2.1';
const ROUTER_OUTSIDE = '198.51.100.1';
// The device reaches the device API over its underlay link, not through the tunnel, so a
// key rotation cannot cut it off from the heartbeat that delivers the new keys.
const DEVICE_API = 'http://172.16.9.1:8443';

interface Tunnel { private_key: string; preshared_key: string; server_pub: string; internal_ip: string; endpoint: string; allowed_ips: string }

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

/** The wg-quick text an agent would write from the contract's fields (hex keys become base64). */
function confFromPayload(p: Tunnel): string {
  return ['[Interface]', `PrivateKey = ${b64(p.private_key)}`, `Address = ${p.internal_ip}/32`, '',
    '[Peer]', `PublicKey = ${b64(p.server_pub)}`, `PresharedKey = ${b64(p.preshared_key)}`,
    `AllowedIPs = ${p.allowed_ips}`, `Endpoint = ${p.endpoint}`, 'PersistentKeepalive = 25', ''].join('\n');
}

interface World { router: Netns; outside: Netns; daemon: NsDaemon; device: WgClient; deviceId: string; deviceNo: number; hwid: string; payload: Tunnel; forwardId: number }
const w = {} as World;

/** A port the router itself serves on its WAN side: the control beside a closed forward port. */
const ROUTER_PORT = (): [string, number] => [ROUTER_OUTSIDE, 7100];
const heartbeat = (body: Record<string, unknown>) => nsRequest(w.device.ns, `${DEVICE_API}/api/v1/heartbeat`, 'POST', {}, body);
/** Keeps trying for up to `ms`: after a peer comes back, WireGuard re-handshakes on its own timers (about 15 s). */
async function reachWithin(ns: Netns, host: string, port: number, ms: number): Promise<string | null> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const got = await reach(ns, host, port, 2000);
    if (got !== null) return got;
  }
  return null;
}
const devicePeerKey = async () => (await w.daemon.api('GET', `/api/peers/${(await w.daemon.api('GET', `/api/devices/${w.deviceNo}`)).json.peerID}`)).json.publicKey as string;
const bringUp = (p: Tunnel) => w.device.up(confFromPayload(p), p.allowed_ips.split(',').map((s) => s.trim()));

if (canRunAsRoot('device tunnel netns')) {
  t.before(async () => {
    w.router = new Netns('drouter');
    w.router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
    w.router.exec('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
    w.outside = new Netns('doutside');
    linkNamespaces(w.router, `${ROUTER_OUTSIDE}/24`, w.outside, '198.51.100.2/24');
    // The outside link holds the default route: the router's WAN side, where port forwards apply.
    w.router.exec('ip', ['route', 'add', 'default', 'via', '198.51.100.2']);
    w.daemon = await startNsDaemon(w.router, { env: { SERVER_SALT: SALT, WGCP_DEVICE_LISTEN: '0.0.0.0:8443' } });
    const server = await w.daemon.api('POST', '/api/servers', { name: 'fleet', endpoint: `${ENDPOINT_IP}:51830`, mode: 'forward', address: '10.78.0.1/24' });
    assert.is(server.status, 201, server.text);
    w.device = new WgClient('ddev', w.router, 9, ENDPOINT_IP);
    const token = await w.daemon.api('POST', `/api/servers/${server.json.id}/tokens`);
    assert.is(token.status, 201, token.text);
    w.hwid = 'arm-board-0042';
    // Provisioned from the device namespace, over the device listener.
    const prov = await nsRequest(w.device.ns, `${DEVICE_API}/api/v1/provision`, 'POST', {}, { token: token.json.token, hwid: w.hwid });
    assert.is(prov.status, 200, prov.text);
    const payload = pythonDecrypt(prov.json.encrypted_config, w.hwid) as unknown as Tunnel & { device_id: string };
    w.deviceId = payload.device_id;
    w.deviceNo = (await deviceByUuid((p) => w.daemon.api('GET', p), w.deviceId)).id;
    w.payload = payload;
    await bringUp(payload);
    await serveTcp(w.device.ns, 7000, 'device');
    await serveTcp(w.router, 7100, 'router');
  });

  t.after(async () => {
    await w.daemon?.stop();
    w.device?.destroy();
    w.outside?.destroy();
    w.router?.destroy();
  });

  t('the tunnel built from the decrypted payload carries traffic to the server', async () => {
    assert.ok(await reachSoon(w.router, w.payload.internal_ip, 7000), 'the router reaches the device service through the tunnel');
    const hb = await heartbeat({ device_id: w.deviceId, status: 'connected', tunnel_up: true });
    assert.is(hb.status, 200, hb.text);
    const shown = (await w.daemon.api('GET', `/api/devices/${w.deviceNo}`)).json;
    assert.is(shown.lastSourceAddress, '172.16.9.2');
    assert.is(shown.tunnelUp, true);
  });

  t('a port forward is a DNAT from the router port to the device tunnel address, reached by real traffic', async () => {
    assert.is(await reachBeside(w.outside, [ROUTER_OUTSIDE, 9191], ROUTER_PORT()), null, 'closed before the forward exists');
    const before = (await heartbeat({ device_id: w.deviceId })).json.forwards_hash;
    const fwd = await w.daemon.api('POST', `/api/devices/${w.deviceNo}/forwards`, { protocol: 'tcp', listenPort: 9191, targetPort: 7000 });
    assert.is(fwd.status, 201, fwd.text);
    w.forwardId = fwd.json.id;
    const got = await reachSoon(w.outside, ROUTER_OUTSIDE, 9191);
    assert.ok(got?.startsWith('device '), `the device answered: ${got}`);
    const after = (await heartbeat({ device_id: w.deviceId })).json.forwards_hash;
    assert.is.not(after, before);
    assert.is(after, crypto.createHash('sha256').update('[{"protocol":"tcp","listenPort":9191,"targetPort":7000}]').digest('hex'));
    const udp = await w.daemon.api('POST', `/api/devices/${w.deviceNo}/forwards`, { protocol: 'udp', listenPort: 9192, targetPort: 7001 });
    assert.is(udp.status, 201, udp.text);
    assert.ok(w.router.exec('nft', ['list', 'map', 'inet', 'wgcp', 'port_forwards']).includes(`udp . 9192 : ${w.payload.internal_ip} . 7001`));
    assert.is((await w.daemon.api('DELETE', `/api/forwards/${udp.json.id}`)).status, 204);
  });

  t('a key rotation cuts the old keys off; the keys from the next heartbeat bring the tunnel back', async () => {
    assert.is((await w.daemon.api('POST', `/api/devices/${w.deviceNo}/rotate`)).status, 200);
    // Re-applying the old configuration starts a fresh handshake, which the router must refuse.
    await bringUp(w.payload);
    // The tunnel itself is what is refused: no other path to compare with; the rotation is checked by the keys that follow.
    assert.is(await reach(w.router, w.payload.internal_ip, 7000, 3000), null, 'old keys no longer work');
    const hb = await heartbeat({ device_id: w.deviceId, status: 'recovering' });
    assert.is(hb.status, 200, hb.text);
    assert.is.not(hb.json.private_key, w.payload.private_key);
    w.payload = hb.json as Tunnel;
    await bringUp(w.payload);
    assert.ok(await reachSoon(w.outside, ROUTER_OUTSIDE, 9191), 'the forward works again with the rotated keys');
  });

  t('suspension takes the device off the router and refuses its heartbeat; reinstating restores both', async () => {
    assert.is((await w.daemon.api('PUT', `/api/devices/${w.deviceNo}`, { suspended: true })).status, 200);
    assert.equal([(await heartbeat({ device_id: w.deviceId })).status, (await heartbeat({ device_id: w.deviceId })).json], [403, { error: 'device is suspended' }]);
    const key = await devicePeerKey();
    assert.not.ok(w.daemon.exec('wg', ['show', 'wgcp1', 'peers']).includes(key), 'the peer left the interface');
    assert.is(await reachBeside(w.outside, [ROUTER_OUTSIDE, 9191], ROUTER_PORT()), null);
    assert.is((await w.daemon.api('PUT', `/api/devices/${w.deviceNo}`, { suspended: false })).status, 200);
    assert.ok(w.daemon.exec('wg', ['show', 'wgcp1', 'peers']).includes(key), 'the peer is back');
    // The device changes nothing: its tunnel heals by WireGuard's own handshake retry.
    assert.ok(await reachWithin(w.outside, ROUTER_OUTSIDE, 9191, 40_000));
    assert.is((await heartbeat({ device_id: w.deviceId })).status, 200);
  });

  t('deleting the device removes its peer and its forward from the kernel', async () => {
    assert.is((await w.daemon.api('DELETE', `/api/devices/${w.deviceNo}`)).status, 204);
    assert.not.ok(w.router.exec('nft', ['list', 'map', 'inet', 'wgcp', 'port_forwards']).includes('9191'));
    assert.is(w.daemon.exec('wg', ['show', 'wgcp1', 'peers']).trim(), '');
    assert.is(await reachBeside(w.outside, [ROUTER_OUTSIDE, 9191], ROUTER_PORT()), null);
    assert.equal((await heartbeat({ device_id: w.deviceId })).json, { error: 'device not found' });
  });
}

t.run();
