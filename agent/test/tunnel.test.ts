// The real tunnel: wireguard-go (or the kernel module) in a namespace the test makes,
// against a WireGuard server set up by hand with `wg` in another.
import crypto from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../src/log';
import type { TunnelConfig } from '../src/payload';
import { WgTunnel } from '../src/tunnel';
import { hexToBase64 } from '../src/tunnel-plan';
import { link, Netns } from './helpers/netns';
import { canRunAsRoot } from './helpers/root';

const t = suite('agent tunnel with wireguard-go');
const enabled = canRunAsRoot('agent tunnel with wireguard-go', ['ip', 'wg', 'wireguard-go']);

function keyPairHex(): { priv: string; pub: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('x25519');
  const d = privateKey.export({ format: 'jwk' }).d as string;
  const x = publicKey.export({ format: 'jwk' }).x as string;
  return { priv: Buffer.from(d, 'base64url').toString('hex'), pub: Buffer.from(x, 'base64url').toString('hex') };
}

let srv: Netns;
let dev: Netns;
let tunnel: WgTunnel;
const srvIf = `wgs${crypto.randomBytes(3).toString('hex')}`;
const devIf = `wgd${crypto.randomBytes(3).toString('hex')}`;
const server = keyPairHex();
const device = keyPairHex();
const psk = crypto.randomBytes(32).toString('hex');

/** The server side: a WireGuard interface that knows the device's public key. */
function serverAccepts(pubHex: string, allowed: string): void {
  srv.execWithSecret('wg', ['set', srvIf, 'peer', hexToBase64(pubHex), 'preshared-key', '{file}', 'allowed-ips', allowed], hexToBase64(psk));
}

const config = (extra: Partial<TunnelConfig> = {}): TunnelConfig => ({
  device_id: crypto.randomUUID(), private_key: device.priv, preshared_key: psk, internal_ip: '10.77.0.2',
  server_pub: server.pub, endpoint: '10.199.0.1:51820', dns: '10.77.0.1', allowed_ips: '10.77.0.0/24', server_wg_ip: '10.77.0.1', ...extra,
});

const ping = (ip: string): boolean => { try { dev.exec('ping', ['-c', '1', '-W', '2', ip]); return true; } catch { return false; } };
const wgoProcesses = (): number => dev.pids().length;

if (enabled) {
  // uvu would swallow an error thrown by a hook: say it before rethrowing.
  t.before(() => { try { setup(); } catch (e) { console.error('setup failed:', e); throw e; } });

  function setup(): void {
    srv = new Netns();
    dev = new Netns();
    link(srv, '10.199.0.1/24', dev, '10.199.0.2/24');
    srv.exec('wireguard-go', [srvIf]);
    srv.execWithSecret('wg', ['set', srvIf, 'listen-port', '51820', 'private-key', '{file}'], hexToBase64(server.priv));
    srv.exec('ip', ['addr', 'add', '10.77.0.1/24', 'dev', srvIf]);
    srv.exec('ip', ['link', 'set', srvIf, 'up']);
    serverAccepts(device.pub, '10.77.0.2/32');
    tunnel = new WgTunnel(devIf, silentLogger, dev.runner());
  }

  t.after(() => {
    // Deleting the link lets wireguard-go exit and remove its socket; a SIGKILL would leave it.
    try { srv.exec('ip', ['link', 'del', srvIf]); } catch { /* gone */ }
    dev.destroy();
    srv.destroy();
  });

  t('brings the tunnel up: a real handshake and traffic to the server tunnel address', async () => {
    await tunnel.up(config());
    assert.ok(ping('10.77.0.1'), 'ping through the tunnel');
    const status = await tunnel.inspect();
    assert.ok(status.present);
    assert.ok(status.lastHandshake && Date.now() - status.lastHandshake.getTime() < 10_000);
  });

  t('configures keys from hex, the endpoint and PersistentKeepalive 25', async () => {
    const dump = dev.exec('wg', ['show', devIf, 'dump']).trim().split('\n');
    const [ifPriv] = dump[0].split('\t');
    const [peerPub, peerPsk, endpoint, allowed, , , , keepalive] = dump[1].split('\t');
    assert.equal([ifPriv, peerPub, peerPsk, endpoint, allowed, keepalive],
      [hexToBase64(device.priv), hexToBase64(server.pub), hexToBase64(psk), '10.199.0.1:51820', '10.77.0.0/24', '25']);
  });

  t('rebuilds cleanly with a new address and key: one wireguard-go, traffic flows', async () => {
    const rotated = keyPairHex();
    serverAccepts(rotated.pub, '10.77.0.9/32');
    await tunnel.up(config({ private_key: rotated.priv, internal_ip: '10.77.0.9' }));
    assert.ok(ping('10.77.0.1'));
    assert.match(dev.exec('ip', ['-o', 'addr', 'show', 'dev', devIf]), '10.77.0.9/32');
    assert.not.match(dev.exec('ip', ['-o', 'addr', 'show', 'dev', devIf]), '10.77.0.2/32');
    assert.is(wgoProcesses(), 1);
  });

  t('runs a full tunnel (0.0.0.0/0) while keeping the endpoint reachable', async () => {
    await tunnel.up(config({ allowed_ips: '0.0.0.0/0' }));
    assert.ok(ping('10.77.0.1'));
    assert.match(dev.exec('ip', ['rule', 'show']), 'not from all fwmark 0xca6c lookup 51820');
    await tunnel.down();
    assert.not.match(dev.exec('ip', ['rule', 'show']), '51820');
  });

  t('takes the tunnel down: no link, no wireguard-go left', async () => {
    await tunnel.up(config());
    await tunnel.down();
    assert.not.ok((await tunnel.inspect()).present);
    assert.throws(() => dev.exec('ip', ['link', 'show', devIf]));
    for (let i = 0; i < 50 && wgoProcesses() > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.is(wgoProcesses(), 0);
  });

  t('replaces a tunnel left behind by a killed agent', async () => {
    await tunnel.up(config());
    const fresh = new WgTunnel(devIf, silentLogger, dev.runner()); // a new process knows nothing
    await fresh.up(config());
    assert.ok(ping('10.77.0.1'));
    assert.is(wgoProcesses(), 1);
    await fresh.down();
  });
}

t.run();
