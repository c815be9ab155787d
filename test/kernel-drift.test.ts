// The kernel kept true: wgcpd in a router namespace with nft and wireguard-go, a client
// peer with real traffic, and each kind of drift made by hand with the real tools. The
// reconciler puts it right through the change runner (audit actor `reconciler`), counts it
// in wgcp_kernel_drift_repairs_total and logs one line a pass; nothing outside wgcp's links
// and table is touched.
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, wgcpCheck, WITHOUT_CAPABILITIES, type NsDaemon } from './helpers/ns-daemon';
import { wireguardGoPid } from './helpers/kernel-state';
import { eventually } from './helpers/receiver';
import { serveTcp, reachSoon, WgClient } from './helpers/wg-client';
import fs from 'node:fs';
import { generateKeyPair } from '../src/wg/keys';

const t = suiteNeeding('kernel drift: the reconciler with the real kernel', ['ip', 'nft', 'wg', 'wireguard-go', 'nsenter', 'unshare', 'ping', 'tc'], { root: true });

const ENDPOINT_IP = '192.0.2.1';
const ROUTER_ADDR = '10.79.0.1';
const OTHER_TABLE = 'table inet other {\n  set keep { type ipv4_addr; elements = { 203.0.113.9 } }\n}\n';

const w = {} as { router: Netns; d: NsDaemon; serverId: number; ifname: string; client: WgClient; peer: { id: number; publicKey: string; ip: string }; hooked: string[] };

// A webhook receiver on the router's loopback: each body it takes, one line on its stdout.
const RECEIVER = `require('http').createServer((q, s) => { let b = ''; q.on('data', (d) => b += d); q.on('end', () => { process.stdout.write(b.replace(/\\n/g, ' ') + '\\n'); s.end('ok'); }); }).listen(9099, '127.0.0.1', () => process.stdout.write('ready\\n'));`;

/** A counter of the daemon's /metrics by kind. */
async function metric(name: string, kind: string): Promise<number> {
  const text = (await w.d.api('GET', '/metrics')).text;
  const m = new RegExp(`^${name}\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text);
  if (!m) throw new Error(`no ${name}{kind="${kind}"} in /metrics`);
  return Number(m[1]);
}
const repairs = (kind: string) => metric('wgcp_kernel_drift_repairs_total', kind);
const checks = (kind: string) => metric('wgcp_kernel_drift_checks_total', kind);

const serverPeers = (): string[] => w.d.exec('wg', ['show', w.ifname, 'peers']).trim().split('\n').filter(Boolean);
const allowedOf = (key: string): string => (w.d.exec('wg', ['show', w.ifname, 'allowed-ips']).split('\n').find((l) => l.startsWith(key)) ?? '').split('\t')[1] ?? '';
const setHolds = (set: string, element: string): boolean => w.router.exec('nft', ['list', 'set', 'inet', 'wgcp', set]).includes(element);
const check = () => wgcpCheck(w.d);

const repairLines = (): number => w.d.output().split('kernel drift repaired').length - 1;

/** The client starts a fresh session (its old one died with the peer) and a ping goes through the tunnel. */
async function trafficFlows(): Promise<void> {
  const before = Date.now() / 1000;
  // The client's config loaded again (`wg setconf` replaces its peer): a reconnect, as a phone makes.
  await w.client.up((await w.d.api('GET', `/api/peers/${w.peer.id}/config`)).text, ['10.79.0.0/24']);
  assert.match(await reachSoon(w.client.ns, ROUTER_ADDR, 7000) ?? '', /^router /, 'a TCP answer through the tunnel');
  w.client.ns.exec('ping', ['-c', '1', '-W', '3', ROUTER_ADDR]);
  const handshake = Number(w.d.exec('wg', ['show', w.ifname, 'latest-handshakes']).split('\n').find((l) => l.startsWith(w.peer.publicKey))!.split('\t')[1]);
  assert.ok(handshake >= Math.floor(before) - 1, 'the router saw a new handshake from the repaired peer');
}

/** The reconciler's audit rows. */
async function reconcilerAudits(): Promise<number> {
  const res = await w.d.api('GET', '/api/audit?actor=reconciler&action=kernel.repair');
  assert.is(res.status, 200, res.text);
  const rows = res.json.entries as { action: string; actor: { kind: string } }[];
  return rows.filter((r) => r.action === 'kernel.repair' && r.actor.kind === 'reconciler').length;
}

t.before(async () => {
  w.router = new Netns('drift');
  w.router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
  w.router.exec('nft', ['-f', '-'], OTHER_TABLE);
  await serveTcp(w.router, 7000, 'router');
  w.hooked = [];
  const receiver = w.router.spawn(process.execPath, ['-e', RECEIVER]);
  await new Promise<void>((resolve) => {
    let buf = '';
    receiver.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const l = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (l === 'ready') resolve(); else w.hooked.push(l);
      }
    });
  });
  w.d = await startNsDaemon(w.router, { env: { WGCP_USAGE_INTERVAL_S: '1' } });
  const s = await w.d.api('POST', '/api/servers', { name: 'kept', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward', address: `${ROUTER_ADDR}/24` });
  assert.is(s.status, 201, s.text);
  w.serverId = s.json.id;
  w.ifname = s.json.interface;
  const p = await w.d.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'phone' });
  assert.is(p.status, 201, p.text);
  w.peer = p.json;
  const hook = await w.d.api('POST', `/api/servers/${w.serverId}/webhooks`, { url: 'http://127.0.0.1:9099/drift', isGlobal: true, subscribedActions: [9] });
  assert.is(hook.status, 201, hook.text);
  w.client = new WgClient('drift-c', w.router, 1, ENDPOINT_IP);
  const conf = await w.d.api('GET', `/api/peers/${w.peer.id}/config`);
  await w.client.up(conf.text, ['10.79.0.0/24']);
  assert.match(await reachSoon(w.client.ns, ROUTER_ADDR, 7000) ?? '', /^router /);
});

t.after(async () => {
  await w.d?.stop();
  w.client?.destroy();
  w.router?.destroy();
});

t('with nothing drifted, compares run and no repair does', async () => {
  const peerChecks = await checks('peer');
  const linkChecks = await checks('link');
  const tableChecks = await checks('nft');
  // A change of wgcp's own (through its nft session and wg) is not drift either.
  assert.is((await w.d.api('PUT', `/api/peers/${w.peer.id}`, { allowInternet: true })).status, 200);
  await eventually('three peer compares and three link compares', async () => ((await checks('peer')) >= peerChecks + 3 && (await checks('link')) >= linkChecks + 3 ? true : undefined), 20_000);
  for (const kind of ['peer', 'link', 'nft', 'ipv6']) assert.is(await repairs(kind), 0, kind);
  // The monitor saw wgcp's own batch and did not compare the table for it (a foreign one does: below).
  assert.is(await checks('nft'), tableChecks);
  assert.is(repairLines(), 0);
  assert.is(await reconcilerAudits(), 0);
  assert.is((await w.d.api('GET', `/api/servers/${w.serverId}?peers=none`)).json.lastKernelRepair, null);
});

t('a peer removed by hand is put back, and traffic flows through it again', async () => {
  w.d.exec('wg', ['set', w.ifname, 'peer', w.peer.publicKey, 'remove']);
  assert.not.ok(serverPeers().includes(w.peer.publicKey));
  await eventually('the peer is back', () => (serverPeers().includes(w.peer.publicKey) ? true : undefined), 15_000);
  assert.ok(allowedOf(w.peer.publicKey).includes(`${w.peer.ip}/32`));
  assert.ok(await repairs('peer') >= 1);
  await eventually('the repair pass is logged', () => (repairLines() >= 1 ? true : undefined));
  assert.ok(await reconcilerAudits() >= 1, 'the repair is a change authored by the reconciler');
  const sent = await eventually('a kernelDrift webhook', () => w.hooked.map((b) => JSON.parse(b)).find((e) => e.event === 'kernelDrift'));
  assert.is(sent.action, 9);
  assert.is(sent.serverID, w.serverId);
  assert.ok(sent.data.kinds.peer >= 1 && sent.data.findings[0].counts.peersMissing === 1, JSON.stringify(sent.data));
  assert.not.ok(w.hooked.some((b) => b.includes(w.peer.publicKey)), 'no key in the event');
  const last = (await w.d.api('GET', `/api/servers/${w.serverId}?peers=none`)).json.lastKernelRepair;
  assert.ok(last && last.kinds.peer >= 1 && typeof last.at === 'string', JSON.stringify(last));
  assert.not.ok(/kernel drift repaired[^\n]*[A-Za-z0-9+/]{43}=/.test(w.d.output()), 'no key in the log line');
  await trafficFlows();
});

t('allowed IPs changed by hand are put back', async () => {
  w.d.exec('wg', ['set', w.ifname, 'peer', w.peer.publicKey, 'allowed-ips', '10.79.0.200/32']);
  await eventually('the allowed IPs are back', () => (allowedOf(w.peer.publicKey).includes(`${w.peer.ip}/32`) ? true : undefined), 15_000);
  assert.not.ok(allowedOf(w.peer.publicKey).includes('10.79.0.200/32'));
});

t('a peer added by hand to a wgcp interface is removed', async () => {
  const stranger = generateKeyPair().publicKey;
  w.d.exec('wg', ['set', w.ifname, 'peer', stranger, 'allowed-ips', '10.79.0.250/32']);
  assert.ok(serverPeers().includes(stranger));
  await eventually('the stranger is gone', () => (serverPeers().includes(stranger) ? undefined : true), 15_000);
  assert.ok(serverPeers().includes(w.peer.publicKey), 'wgcp\'s own peer stays');
});

t('an element deleted from inet wgcp is added again', async () => {
  const before = await repairs('nft');
  const tableChecksBefore = await checks('nft');
  const element = `"${w.ifname}" . ${ROUTER_ADDR}`;
  assert.ok(setHolds('server_addrs', element));
  w.router.exec('nft', ['delete', 'element', 'inet', 'wgcp', 'server_addrs', `{ ${element} }`]);
  await eventually('the element is back', () => (setHolds('server_addrs', element) ? true : undefined), 10_000);
  assert.is(await repairs('nft'), before + 1, 'one element, one repair: not a rebuild');
  assert.ok(await checks('nft') > tableChecksBefore, 'the foreign change was compared');
});

/** The daemon's kept `nft monitor`, found among the namespace's processes. */
function monitorPid(): number | null {
  for (const pid of w.d.exec('ip', ['netns', 'pids', w.d.ns.name]).split(/\s+/).filter(Boolean)) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd[0].endsWith('nft') && cmd[1] === 'monitor') return Number(pid);
    } catch { /* exited meanwhile */ }
  }
  return null;
}

t('a killed nft monitor is started again and sees the next change', async () => {
  const pid = monitorPid();
  assert.ok(pid, 'the daemon keeps an nft monitor');
  process.kill(pid!, 'SIGKILL');
  await eventually('a new nft monitor', () => { const now = monitorPid(); return now && now !== pid ? now : undefined; });
  // Its subscription is made as it starts: a moment for it, then a change only it can see soon.
  await new Promise((r) => setTimeout(r, 300));
  const element = `"${w.ifname}" . ${ROUTER_ADDR}`;
  w.router.exec('nft', ['delete', 'element', 'inet', 'wgcp', 'server_addrs', `{ ${element} }`]);
  await eventually('the element is back', () => (setHolds('server_addrs', element) ? true : undefined), 10_000);
});

t('the whole ruleset flushed: inet wgcp is loaded again, traffic flows, other tables stay gone', async () => {
  const before = await repairs('nft');
  w.router.exec('nft', ['flush', 'ruleset']);
  await eventually('the table is back', () => {
    try { return setHolds('server_addrs', `"${w.ifname}" . ${ROUTER_ADDR}`) ? true : undefined; } catch { return undefined; }
  }, 10_000);
  assert.ok(await repairs('nft') > before);
  // Not wgcp's: never made again.
  assert.throws(() => w.router.exec('nft', ['list', 'table', 'inet', 'other']));
  await trafficFlows();
});

t('a rule added by hand to a chain of inet wgcp, or one changed, is taken out: the table is loaded again', async () => {
  const rules = () => w.router.exec('nft', ['-a', 'list', 'chain', 'inet', 'wgcp', 'tunnel_input']);
  const before = rules();
  w.router.exec('nft', ['insert', 'rule', 'inet', 'wgcp', 'tunnel_input', 'tcp', 'dport', '7000', 'drop']);
  await eventually('the hand-made rule is gone', () => (rules().includes('dport 7000 drop') ? undefined : true), 10_000);
  // A rule replaced in place keeps the count: it is seen against the chains as wgcp loaded them.
  const handle = /ct state established,related accept # handle (\d+)/.exec(rules())![1];
  w.router.exec('nft', ['replace', 'rule', 'inet', 'wgcp', 'tunnel_input', 'handle', handle, 'ct', 'state', 'established,related', 'drop']);
  await eventually('the changed rule is wgcp\'s again', () => (/established,related accept/.test(rules()) ? true : undefined), 10_000);
  assert.is(rules().replace(/# handle \d+/g, ''), before.replace(/# handle \d+/g, ''));
  await trafficFlows();
});

t('a bandwidth limit\'s map element deleted by hand is put back at once: the monitor watches netdev wgcp too, not only the audit', async () => {
  const limited = await w.d.api('PUT', `/api/peers/${w.peer.id}`, { downloadLimitMbps: 50 });
  assert.is(limited.status, 200, limited.text);
  const table = () => w.router.exec('nft', ['list', 'table', 'netdev', 'wgcp']);
  const map = /map (s[0-9a-f]{8}_d4) \{/.exec(table())![1];
  assert.match(table(), `${w.peer.ip} : 1:`);
  const before = await repairs('shaping');
  // The full audit comes every 15 minutes here: only the monitor can see this within seconds.
  w.router.exec('nft', ['delete', 'element', 'netdev', 'wgcp', map, `{ ${w.peer.ip} }`]);
  await eventually('the element is back', () => (table().includes(`${w.peer.ip} : 1:`) ? true : undefined), 10_000);
  assert.is(await repairs('shaping'), before + 1, 'one element, one repair');
  const lifted = await w.d.api('PUT', `/api/peers/${w.peer.id}`, { downloadLimitMbps: null });
  assert.is(lifted.status, 200, lifted.text);
  assert.not.match(table(), `${w.peer.ip} `);
});

t('the interface set down by hand is brought up', async () => {
  w.d.exec('ip', ['link', 'set', w.ifname, 'down']);
  await eventually('the link is up', () => (/state (UP|UNKNOWN)/.test(w.d.exec('ip', ['link', 'show', w.ifname])) && /[<,]UP[,>]/.test(w.d.exec('ip', ['link', 'show', w.ifname])) ? true : undefined), 10_000);
});

t('IPv6 forwarding turned off on the interface is turned on again', async () => {
  w.d.exec('sysctl', ['-q', '-w', `net.ipv6.conf.${w.ifname}.force_forwarding=0`]);
  await eventually('forwarding is on', () => (w.d.exec('sysctl', ['-n', `net.ipv6.conf.${w.ifname}.force_forwarding`]).trim() === '1' ? true : undefined), 20_000);
});

t('router-wide IPv6 forwarding (all.forwarding=1, the Debian package\'s sysctl.d) is found on: the interface\'s own flag is not written, nothing is repaired', async () => {
  const flag = () => w.d.exec('sysctl', ['-n', `net.ipv6.conf.${w.ifname}.force_forwarding`]).trim();
  w.d.exec('sysctl', ['-q', '-w', 'net.ipv6.conf.all.forwarding=1']);
  try {
    w.d.exec('sysctl', ['-q', '-w', `net.ipv6.conf.${w.ifname}.force_forwarding=0`]);
    const [repaired, checked] = [await repairs('ipv6'), await checks('ipv6')];
    // Passes of the 2 s link and forwarding check (the fourth begun, so three ended): each would have written the flag.
    await eventually('three more ipv6 checks', async () => ((await checks('ipv6')) >= checked + 4 ? true : undefined), 20_000);
    assert.is(flag(), '0', 'the daemon wrote nothing in /proc/sys');
    assert.is(await repairs('ipv6'), repaired);
    const c = check();
    assert.is(c.code, 0, c.out);
  } finally {
    // Turning all.forwarding off resets every force_forwarding: the daemon turns its own on again.
    w.d.exec('sysctl', ['-q', '-w', 'net.ipv6.conf.all.forwarding=0']);
    await eventually('forwarding is on', () => (flag() === '1' ? true : undefined), 20_000);
  }
});

t('wgcp check prints the difference without repairing it (exit 1), and exit 0 once the daemon has', async () => {
  const clean = check();
  assert.is(clean.code, 0, clean.out);
  assert.match(clean.out, /holds what the database says/);
  // WGCP_WAN_INTERFACES=auto (the env file's default) means the default routes' interfaces, as in wgcpd, not a link named auto.
  const auto = wgcpCheck(w.d, ['WGCP_WAN_INTERFACES=auto']);
  assert.is(auto.code, 0, auto.out);
  // The daemon held still, so that nothing repairs while the CLI looks: its socket does not
  // answer, and the CLI (root, with CAP_NET_ADMIN) compares in its own process.
  process.kill(w.d.pid, 'SIGSTOP');
  let found: { code: number; out: string };
  try {
    w.d.exec('wg', ['set', w.ifname, 'peer', w.peer.publicKey, 'remove']);
    w.router.exec('nft', ['delete', 'element', 'inet', 'wgcp', 'server_addrs', `{ "${w.ifname}" . ${ROUTER_ADDR} }`]);
    found = check();
    assert.not.ok(serverPeers().includes(w.peer.publicKey), 'the check repaired nothing');
  } finally {
    process.kill(w.d.pid, 'SIGCONT');
  }
  assert.is(found.code, 1, found.out);
  assert.match(found.out, /^peer +.*1 peers missing/m);
  assert.match(found.out, /^nft +.*1 elements missing/m);
  assert.not.match(found.out, new RegExp(w.peer.publicKey.replace(/[+/]/g, '.')), 'no key printed');
  await eventually('the daemon repaired both', () => (check().code === 0 ? true : undefined), 15_000);
});

t('wgcp check without CAP_NET_ADMIN (OpenWrt\'s wgcp runs as the daemon\'s user) prints the daemon\'s report, asked through its socket', async () => {
  // Root and the socket's owner still, but nft refuses it: what the CLI could read itself is nothing.
  assert.throws(() => w.d.exec(WITHOUT_CAPABILITIES[0], [...WITHOUT_CAPABILITIES.slice(1), 'nft', 'list', 'tables']), /Operation not permitted/);
  const clean = wgcpCheck(w.d, [], { withoutCapabilities: true });
  assert.is(clean.code, 0, clean.out + clean.err);
  assert.match(clean.out, /^the kernel holds what the database says$/m);
  const json = wgcpCheck(w.d, [], { withoutCapabilities: true, args: ['--json'] });
  assert.is(json.code, 0, json.out + json.err);
  assert.equal(JSON.parse(json.out), { same: true, differences: [] });
  // The route itself: the daemon's comparison, for admin alone.
  const report = await w.d.api('GET', '/api/kernel/check');
  assert.is(report.status, 200, report.text);
  assert.equal(report.json, { same: true, differences: [] });
});

t('wireguard-go killed: the interface and its peer are back, reported as a repair', async () => {
  const pid = wireguardGoPid(w.d, w.ifname);
  assert.ok(pid);
  const before = await repairs('link');
  process.kill(pid!, 'SIGKILL');
  await eventually('a new wireguard-go with the peer', () => {
    const now = wireguardGoPid(w.d, w.ifname);
    try { return now && now !== pid && serverPeers().includes(w.peer.publicKey) ? true : undefined; } catch { return undefined; }
  }, 15_000);
  await eventually('the restore is counted', async () => ((await repairs('link')) > before ? true : undefined));
  await trafficFlows();
});

t('the interface deleted by hand is made again with its peer', async () => {
  const before = await repairs('link');
  w.d.exec('ip', ['link', 'del', w.ifname]);
  await eventually('the interface is back with the peer', () => {
    try { return serverPeers().includes(w.peer.publicKey) && /[<,]UP[,>]/.test(w.d.exec('ip', ['link', 'show', w.ifname])) ? true : undefined; } catch { return undefined; }
  }, 15_000);
  await eventually('the repair is counted', async () => ((await repairs('link')) > before ? true : undefined));
  await trafficFlows();
});

t('the server\'s last repair is still shown after the daemon restarts', async () => {
  const shown = async () => (await w.d.api('GET', `/api/servers/${w.serverId}?peers=none`)).json.lastKernelRepair;
  const last = await shown();
  assert.ok(last && last.repairs >= 1, JSON.stringify(last));
  assert.is(await w.d.stop(), 0);
  w.d = await startNsDaemon(w.router, { dataDir: w.d.dataDir, env: { WGCP_USAGE_INTERVAL_S: '1' } });
  assert.equal(await shown(), last);
});

t.run();
