// wgcpd on a router laid out as OpenWrt's: BusyBox's `ip` applet first on PATH, an `nft`
// built without its interactive CLI (so every change goes through the `nft -f` fallback),
// and fw4's table beside wgcp's (input and forward rejecting, zone chains), rendered from
// the zone, forwarding, rules and nftables.d snippet the package adds. Real WireGuard
// clients (wireguard-go in their own namespaces) and real TCP prove what passes.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { linkNamespaces, Netns, sh } from './helpers/netns';
import { nsRequest, startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { tempDir } from './helpers/daemon';
import { reach, reachBeside, reachSoon, serveTcp, WgClient } from './helpers/wg-client';
import { addChainPreIncludes, addUciBatch, defaultConfig, renderFw4, type Fw4Config } from './openwrt-fw4';
import { REPO_ROOT } from './packaging-container';

const t = suite('openwrt: BusyBox ip, nft without its CLI, and fw4 beside wgcp');
const ENDPOINT_IP = '192.0.2.1';
const INTERNET = '198.51.100.2';
const FILES = path.join(REPO_ROOT, 'openwrt', 'wgcp', 'files');

interface World {
  router: Netns; internet: Netns; daemon: NsDaemon; tools: string; ipLog: string; wanIf: string;
  serverId: number; a: WgClient; b: WgClient; device: WgClient; deviceConf: string;
  peers: Record<'a' | 'b', { id: number; ip: string }>;
}
const w = {} as World;

/** A folder to put first on PATH: `ip` is BusyBox's applet (its calls logged), `nft` refuses -i as OpenWrt's build does. */
function openwrtTools(): { dir: string; log: string } {
  const dir = tempDir('wgcp-openwrt-tools-');
  const log = path.join(dir, 'ip.log');
  const busybox = sh('sh', ['-c', 'command -v busybox']).trim();
  const nft = sh('sh', ['-c', 'command -v nft']).trim();
  const iproute2 = sh('sh', ['-c', 'command -v ip']).trim();
  // `ip netns exec` is the harness's own way into the namespace (the daemon never calls it):
  // that alone goes to iproute2; every call of the daemon is logged and goes to BusyBox.
  fs.writeFileSync(path.join(dir, 'ip'), `#!/bin/sh
[ "$1" = netns ] && exec '${iproute2}' "$@"
printf '%s\\n' "$*" >>'${log}'
exec '${busybox}' ip "$@"
`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'nft'), `#!/bin/sh
for a in "$@"; do
  case $a in -i|--interactive) echo "Error: interactive CLI not supported in this build" >&2; exit 1 ;; esac
done
exec '${nft}' "$@"
`, { mode: 0o755 });
  return { dir, log };
}

/** OpenWrt's default zones, with or without what the wgcp package adds (uci-defaults, nftables.d). */
function fw4Ruleset(withWgcp: boolean): string {
  const routerVeths = w.router.exec('ip', ['-o', 'link', 'show']).split('\n').map((l) => /^\d+: (va[0-9a-f]+)@/.exec(l)?.[1]).filter((n): n is string => !!n);
  const config: Fw4Config = defaultConfig(['br-lan'], routerVeths);
  if (withWgcp) {
    addUciBatch(config, fs.readFileSync(path.join(FILES, 'wgcp.uci-defaults'), 'utf8'), { wgcp_api_port: '8443', wgcp_api_on: '1' });
    const data = tempDir('wgcp-nftd-');
    fs.mkdirSync(path.join(data, 'usr/share/nftables.d/chain-pre/forward_wan'), { recursive: true });
    fs.copyFileSync(path.join(FILES, 'fw4-forward-wan.nft'), path.join(data, 'usr/share/nftables.d/chain-pre/forward_wan/30-wgcp.nft'));
    addChainPreIncludes(config, data);
  }
  return renderFw4(config);
}
const loadFw4 = (withWgcp: boolean) => w.router.exec('nft', ['-f', '-'], fw4Ruleset(withWgcp));
const startDaemon = (dataDir?: string) => startNsDaemon(w.router, { dataDir, env: { PATH: `${w.tools}:${process.env.PATH}` } });

async function addPeer(name: 'a' | 'b', body: object): Promise<void> {
  const res = await w.daemon.api('POST', `/api/servers/${w.serverId}/peers`, { name, ...body });
  assert.is(res.status, 201, res.text);
  w.peers[name] = res.json;
}
async function connect(name: 'a' | 'b'): Promise<void> {
  const conf = await w.daemon.api('GET', `/api/peers/${w.peers[name].id}/config`);
  await w[name].up(conf.text, ['10.77.0.0/24', '198.51.100.0/24']);
}

if (canRunAsRoot('openwrt router', ['ip', 'nft', 'wg', 'wireguard-go', 'busybox'])) {
  t.before(() => setUp().catch((err) => { console.error('openwrt router suite setup failed:', err); throw err; }));

  async function setUp(): Promise<void> {
    const tools = openwrtTools();
    w.tools = tools.dir;
    w.ipLog = tools.log;
    w.router = new Netns('owrt');
    w.router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
    w.router.exec('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
    w.internet = new Netns('owan');
    w.wanIf = linkNamespaces(w.router, '198.51.100.1/24', w.internet, `${INTERNET}/24`).aIf;
    w.router.exec('ip', ['route', 'add', 'default', 'via', INTERNET]);
    await serveTcp(w.internet, 80, 'internet');
    await serveTcp(w.router, 7000, 'router');
    w.a = new WgClient('oa', w.router, 1, ENDPOINT_IP);
    w.b = new WgClient('ob', w.router, 2, ENDPOINT_IP);
    w.device = new WgClient('od', w.router, 3, ENDPOINT_IP);
    loadFw4(false);
    w.daemon = await startDaemon();
    const server = await w.daemon.api('POST', '/api/servers', { name: 'office', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward', address: '10.77.0.1/24' });
    assert.is(server.status, 201, server.text);
    w.serverId = server.json.id;
    w.peers = {} as World['peers'];
    await addPeer('a', { allowInternet: true });
    await addPeer('b', {});
    for (const c of [w.a, w.b]) await serveTcp(c.ns, 7000, c === w.a ? 'a' : 'b');
  }

  t.after(async () => {
    await w.daemon?.stop();
    for (const c of [w.a, w.b, w.device]) c?.destroy();
    w.internet?.destroy();
    w.router?.destroy();
    for (const d of [w.daemon?.dataDir, w.tools]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  t('the probe finds BusyBox\'s ip and the kernel backend is on', () => {
    const probe = JSON.parse(w.router.exec('env', [`PATH=${w.tools}:${process.env.PATH}`, process.execPath, '-e',
      `console.log(JSON.stringify(require(${JSON.stringify(path.join(__dirname, '../src/kernel/probe.js'))}).probeKernel()))`]));
    assert.equal(probe, { ok: true, ip: 'busybox', wireguard: 'wireguard-go' });
  });

  t('with fw4\'s defaults alone, its reject stops the tunnels: wgcp\'s own accept does not override it', async () => {
    await connect('a');
    // fw4 rejects the tunnel's own UDP port, so no handshake completes and nothing comes back
    // through it; the next test brings the same client up once the wgcp zone exists.
    assert.is(await reach(w.a.ns, '10.77.0.1', 7000, 2500), null);
  });

  t('with the wgcp zone, rules and snippet, peers reach the router, allowInternet the internet, and not each other', async () => {
    loadFw4(true);
    await connect('a');
    await connect('b');
    assert.is(await reachSoon(w.a.ns, '10.77.0.1', 7000), 'router 10.77.0.2');
    assert.is(await reachSoon(w.b.ns, '10.77.0.1', 7000), 'router 10.77.0.3');
    assert.is(await reachSoon(w.a.ns, INTERNET, 80), 'internet 198.51.100.1');
    assert.is(await reachBeside(w.b.ns, [INTERNET, 80], ['10.77.0.1', 7000]), null, 'fw4 forwards wgcp to wan, wgcp drops who may not');
    assert.is(await reachBeside(w.a.ns, [w.peers.b.ip, 7000], ['10.77.0.1', 7000]), null);
  });

  t('changes go through one nft -f each (no nft -i on this nft) and take effect at once', async () => {
    assert.match(w.daemon.output(), /nft -i cannot be used/);
    const pids = w.router.exec('ip', ['netns', 'pids', w.router.name]).split(/\s+/).filter(Boolean);
    assert.not.ok(pids.some((pid) => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('nft\0-i'); } catch { return false; } }));
    const put = await w.daemon.api('PUT', `/api/peers/${w.peers.b.id}`, { allowInternet: true });
    assert.is(put.status, 200, put.text);
    await connect('b'); // its new .conf sends everything into the tunnel
    assert.is(await reachSoon(w.b.ns, INTERNET, 80), 'internet 198.51.100.1');
    const access = await w.daemon.api('PUT', `/api/peers/${w.peers.a.id}`, { allowAccess: [w.peers.b.id] });
    assert.is(access.status, 200, access.text);
    assert.is(await reachSoon(w.a.ns, w.peers.b.ip, 7000), `b ${w.peers.a.ip}`);
  });

  t('a device port forward passes fw4\'s forward_wan through the nftables.d snippet', async () => {
    const token = await w.daemon.api('POST', `/api/servers/${w.serverId}/tokens`);
    const prov = await nsRequest(w.router, 'http://127.0.0.1:8080/api/v1/provision', 'POST', {}, { token: token.json.token, hwid: 'openwrt-test-device' });
    assert.is(prov.status, 200, prov.text);
    const device = (await w.daemon.api('GET', '/api/devices')).json.find((d: { hwid: string }) => d.hwid === 'openwrt-test-device');
    w.deviceConf = (await w.daemon.api('GET', `/api/peers/${device.peerID}/config`)).text;
    await w.device.up(w.deviceConf, ['10.77.0.0/24']);
    await serveTcp(w.device.ns, 7000, 'device');
    const fwd = await w.daemon.api('POST', `/api/devices/${device.id}/forwards`, { protocol: 'tcp', listenPort: 9090, targetPort: 7000 });
    assert.is(fwd.status, 201, fwd.text);
    assert.is(await reachSoon(w.internet, '198.51.100.1', 9090), 'device 10.77.0.1');
  });

  t('BusyBox ip sets a server\'s MTU and a new address; wgcp never asked it for -j or -d', async () => {
    const second = await w.daemon.api('POST', '/api/servers', { name: 'lab', endpoint: `${ENDPOINT_IP}:51821`, mode: 'forward', address: '10.78.0.1/24' });
    assert.is(second.status, 201, second.text);
    const ifname = second.json.interface;
    const put = await w.daemon.api('PUT', `/api/servers/${second.json.id}`, { address: '10.78.1.1/24', mtu: 1380 });
    assert.is(put.status, 200, put.text);
    const shown = w.router.exec('ip', ['address', 'show', 'dev', ifname]);
    assert.match(shown, /mtu 1380/);
    assert.match(shown, /inet 10\.78\.1\.1\/24/);
    assert.not.match(shown, /10\.78\.0\.1/);
    const calls = fs.readFileSync(w.ipLog, 'utf8').trim().split('\n');
    assert.ok(calls.some((c) => c.startsWith('address add')), calls.join('\n'));
    assert.not.ok(calls.some((c) => /(^| )-(j|d|json|details)( |$)/.test(c)), calls.filter((c) => c.startsWith('-')).join('\n'));
  });

  t('fw4 restart (its own table deleted and loaded again) leaves inet wgcp and the tunnels working', async () => {
    w.router.exec('nft', ['delete', 'table', 'inet', 'fw4']);
    loadFw4(true);
    w.router.exec('nft', ['list', 'table', 'inet', 'wgcp']);
    assert.is(await reachSoon(w.a.ns, INTERNET, 80), 'internet 198.51.100.1');
  });

  t('after fw4 flush, the include restarts wgcpd, which builds inet wgcp again', async () => {
    const { script, marker } = includeWithStubInit();
    assert.is(w.router.exec('sh', [script]), '', 'with the table there it does nothing');
    assert.not.ok(fs.existsSync(marker));
    for (const line of w.router.exec('nft', ['list', 'tables']).trim().split('\n')) w.router.exec('nft', ['delete', 'table', ...line.split(/\s+/).slice(1)]);
    loadFw4(true); // firewall start: fw4 loads its table, then runs the includes
    w.router.exec('sh', [script]);
    assert.is(fs.readFileSync(marker, 'utf8').trim(), 'restart');
    assert.is(await w.daemon.stop(), 0);
    w.daemon = await startDaemon(w.daemon.dataDir);
    w.router.exec('nft', ['list', 'table', 'inet', 'wgcp']);
    await connect('a');
    assert.is(await reachSoon(w.a.ns, INTERNET, 80), 'internet 198.51.100.1');
    await w.device.up(w.deviceConf, ['10.77.0.0/24']);
    assert.is(await reachSoon(w.internet, '198.51.100.1', 9090), 'device 10.77.0.1');
  });

  /** The package's fw4 include with its init script replaced by a stub that says "running" and records "restart". */
  function includeWithStubInit(): { script: string; marker: string } {
    const dir = tempDir('wgcp-include-');
    const marker = path.join(dir, 'called');
    const init = path.join(dir, 'wgcpd');
    fs.writeFileSync(init, `#!/bin/sh\ncase $1 in running) exit 0 ;; restart) echo restart >'${marker}' ;; esac\n`, { mode: 0o755 });
    const script = path.join(dir, 'fw4-include.sh');
    const text = fs.readFileSync(path.join(FILES, 'fw4-include.sh'), 'utf8');
    assert.match(text, /^INIT=\/etc\/init\.d\/wgcpd$/m);
    fs.writeFileSync(script, text.replace(/^INIT=.*$/m, `INIT=${init}`).replace(/^logger .*$/m, ':'));
    return { script, marker };
  }
}

t.run();
