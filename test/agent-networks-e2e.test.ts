// A device with a LAN behind it, end to end: the built agent bundle with `networks` in its
// configuration, wireguard-go in a device namespace with a camera on its LAN, the real wgcpd
// in a router namespace with a LAN host behind it. The heartbeat tells the camera's LAN; the
// router routes it to the device's peer and the LAN host reaches the camera and back (TCP
// and ICMP, both families) once the peer's reachableFrom lets the LAN in, and the camera the
// LAN host once its lanAccess lets it out.
import fs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot, skip } from './helpers/root';
import { AGENT_BUNDLE, AgentInstall, newToken, startAgentWorld, type AgentWorld } from './helpers/agent-world';
import { forwarding, hostBehind, Netns, pings } from './helpers/netns';
import { deviceByUuid } from './helpers/device-lookup';
import { reachSoon, serveTcp } from './helpers/wg-client';

const t = suite('agent with a LAN behind the device, end to end');
const CAMERA_NETS = ['192.168.50.0/24', 'fd50::/64'];
let w: AgentWorld;
let agent: AgentInstall;
let lan: Netns;
let camera: Netns;
let peerId: number;
let ifname: string;

const auditLines = async (action: string) => ((await w.daemon.api('GET', `/api/audit?action=${action}`)).json.entries ?? []).length;

const bundleBuilt = () => fs.existsSync(AGENT_BUNDLE) || skip('agent with a LAN', `${AGENT_BUNDLE} is not built: \`npm --prefix agent run build\``);
if (canRunAsRoot('agent with a LAN', ['ip', 'nft', 'wg', 'wireguard-go', 'openssl', 'ping', 'sysctl']) && bundleBuilt()) {
  t.before(async () => {
    w = await startAgentWorld('anet');
    forwarding(w.router);
    lan = hostBehind(w.router, 'anetl', '192.168.60', 'fd60');
    camera = hostBehind(w.device, 'anetc', '192.168.50', 'fd50');
    await serveTcp(camera, 7200, 'camera');
    await serveTcp(lan, 7201, 'lan-host');
    // A namespace may inherit the host's forwarding: off here, so only the agent can turn it on.
    w.device.exec('sysctl', ['-qw', 'net.ipv4.ip_forward=0']);
    w.device.exec('sysctl', ['-qw', 'net.ipv6.conf.all.forwarding=0']);
    agent = new AgentInstall(w);
    agent.writeConfig(await newToken(w), { networks: CAMERA_NETS });
    ifname = `wgcp${w.serverId}`;
  });

  t.after(async () => {
    await agent?.stop('SIGKILL');
    camera?.destroy();
    lan?.destroy();
    await w?.destroy();
  });

  t('the agent\'s heartbeat puts its LAN on the device\'s peer: AllowedIPs and routes on the router', async () => {
    agent.start();
    await agent.waitConnected();
    const device = await deviceByUuid((p) => w.daemon.api('GET', p), agent.status().device_id!);
    peerId = device.peerID;
    assert.equal((await w.daemon.api('GET', `/api/peers/${peerId}`)).json.networks, CAMERA_NETS);
    const allowed = w.daemon.exec('wg', ['show', ifname, 'allowed-ips']);
    for (const n of CAMERA_NETS) assert.ok(allowed.includes(n), `${n} in AllowedIPs: ${allowed}`);
    assert.match(w.router.exec('ip', ['route', 'show', 'dev', ifname]), /^192\.168\.50\.0\/24 /m);
    assert.match(w.router.exec('ip', ['-6', 'route', 'show', 'dev', ifname]), /^fd50::\/64 /m);
    assert.is(w.device.exec('sysctl', ['-n', 'net.ipv4.ip_forward']).trim(), '1', 'the agent turned on forwarding on the device');
    assert.is(w.device.exec('sysctl', ['-n', 'net.ipv6.conf.all.forwarding']).trim(), '1');
  });

  t('heartbeats that repeat the networks change nothing more', async () => {
    const lines = await auditLines('device.networks');
    assert.is(lines, 1, 'one change, at the first heartbeat');
    const beats = () => agent.logs().length;
    const before = beats();
    await new Promise((r) => setTimeout(r, 3000)); // three heartbeats at 1 s
    assert.ok(beats() >= before, 'the agent still runs');
    assert.is(await auditLines('device.networks'), 1);
  });

  t('with the router\'s LAN in its clientAllowedIPs and reachableFrom, a LAN host behind the router reaches the camera and back, TCP and ICMP, both families', async () => {
    const server = (await w.daemon.api('GET', `/api/servers/${w.serverId}?peers=none`)).json;
    const prefix6 = server.address6.replace(/::1\//, '::/');
    const r = await w.daemon.api('PUT', `/api/peers/${peerId}`, {
      clientAllowedIPs: ['10.88.0.0/24', '192.168.60.0/24', prefix6, 'fd60::/64'], reachableFrom: 'lan', lanAccess: 'lan',
    });
    assert.is(r.status, 200, r.text);
    // The next heartbeat answers the new allowed_ips and the agent rebuilds its tunnel.
    // While the agent rebuilds, the interface is briefly gone: a failed look is a "not yet".
    const routed = () => { try { return w.device.exec('wg', ['show', agent.ifname, 'allowed-ips']).includes('192.168.60.0/24'); } catch { return false; } };
    await agent.waitFor(routed, 'the device routing the router\'s LAN');
    assert.match((await reachSoon(lan, '192.168.50.2', 7200)) ?? '', /^camera 192\.168\.60\.2$/, 'TCP over IPv4, the LAN host\'s own address seen');
    assert.match((await reachSoon(lan, 'fd50::2', 7200)) ?? '', /^camera fd60::2$/, 'TCP over IPv6');
    assert.ok(pings(lan, '192.168.50.2'), 'ping over IPv4');
    assert.ok(pings(lan, 'fd50::2'), 'ping over IPv6');
  });

  t('with lanAccess, the camera opens connections to the LAN host too: the device\'s LAN is the peer\'s as a source', async () => {
    assert.match((await reachSoon(camera, '192.168.60.2', 7201)) ?? '', /^lan-host 192\.168\.50\.2$/, 'TCP over IPv4, the camera\'s own address seen');
    assert.match((await reachSoon(camera, 'fd60::2', 7201)) ?? '', /^lan-host fd50::2$/, 'TCP over IPv6');
    assert.ok(pings(camera, '192.168.60.2'));
  });
}

t.run();
