// The built debs installed for real, as a router owner on Debian 13 would: a fresh trixie root
// (debootstrap, cached) boots its own systemd under systemd-nspawn with a network of its
// own; `apt-get install ./wgcp_….deb` takes Debian's own nodejs 20; systemd runs wgcpd
// from the installed unit (notify, watchdog, restart, sandbox). A WireGuard client and an
// IPv6 host in namespaces of the container prove that IPv6 crosses the tunnels under the
// unit's sandbox; upgrade, remove and purge follow, and removal leaves nothing of wgcp in
// the kernel.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { Container, agentVersion, buildDebs, freshDebianRoot, packageVersion } from './packaging-container';
import { buildWorld, clientUp, ENDPOINT_IP, pingsInternet6 } from './packaging-tunnel';

const t = suite('packaging: deb installed, upgraded, removed and purged in a booted Debian 13');
const runs = canRunAsRoot('packaging-install', ['systemd-nspawn', 'nsenter', 'debootstrap', 'dpkg-deb', 'dpkg-shlibdeps', 'unshare', 'mknod']);
const V1 = packageVersion();
const V2 = `${V1}+ci2`;
let box: Container;
let key = '';
let port = 8080;
let scratch = '';
let ifname = '';

const sh = (script: string) => ['sh', '-c', script];
// An event stream as the page opens it: a WebSocket upgrade on a raw socket; prints the status line and "closed".
const WS_CLIENT = `const [key, port] = process.argv.slice(2);
const s = require('net').connect(Number(port), '127.0.0.1', () => s.write('GET /api/events HTTP/1.1\\r\\nHost: wgcp\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n'
  + 'Sec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nwg-control-key: ' + key + '\\r\\n\\r\\n'));
let first = true;
s.on('data', (d) => { if (first) process.stdout.write(d.toString().split('\\r\\n')[0] + '\\n'); first = false; });
s.on('close', () => process.stdout.write('closed\\n'));
`;
async function api(method: string, p: string, opts: { key?: string; body?: unknown } = {}): Promise<{ status: number; json: any }> {
  const args = ['curl', '-s', '-w', '\n%{http_code}', '-X', method, `http://127.0.0.1:${port}${p}`];
  if (opts.key !== undefined) args.push('-H', `wg-control-key: ${opts.key}`);
  if (opts.body !== undefined) args.push('-d', JSON.stringify(opts.body));
  const out = (await box.run(args, 20_000)).stdout;
  const nl = out.lastIndexOf('\n');
  let json: unknown;
  try { json = JSON.parse(out.slice(0, nl)); } catch { json = out.slice(0, nl); }
  return { status: Number(out.slice(nl + 1)), json };
}
const fileStat = async (f: string) => (await box.run(['stat', '-c', '%a %U %G', f])).stdout.trim();
const exists = async (f: string) => (await box.run(['test', '-e', f])).code === 0;
const sha = async (f: string) => (await box.must(['sha256sum', f])).split(' ')[0];
async function healthy(version: string) {
  return box.until(`wgcpd ${version} answering /healthz`, async () => {
    const h = await api('GET', '/healthz').catch(() => null);
    return h && h.status === 200 && h.json.version === version ? h.json : undefined;
  }, 60_000);
}
async function mainPid(): Promise<number> {
  return Number((await box.unit('wgcpd.service', ['MainPID'])).MainPID);
}
/** The reconciler's repairs in the audit log. */
async function repairRows(): Promise<number> {
  const res = await api('GET', '/api/audit?actor=reconciler&action=kernel.repair', { key });
  assert.is(res.status, 200, JSON.stringify(res.json));
  return (res.json.entries as unknown[]).length;
}
/** wgcp_kernel_drift_checks_total{kind="ipv6"}: one a pass of the 2 s forwarding check. */
async function ipv6Checks(): Promise<number> {
  const text = String((await api('GET', '/metrics', { key })).json);
  return Number(/^wgcp_kernel_drift_checks_total\{kind="ipv6"\} (\d+)$/m.exec(text)?.[1] ?? NaN);
}
const wgcpProcesses = async () => (await box.run(['pgrep', '-u', 'wgcp'])).stdout.trim().split('\n').filter(Boolean);
const journalRepairs = async () => (await box.must(['journalctl', '-u', 'wgcpd', '--no-pager', '-o', 'cat'])).split('kernel drift repaired').length - 1;
/** What is left of wgcp in the kernel: its tables, the links it marked, the processes of its user. */
async function kernelLeftovers(): Promise<{ tables: string[]; marked: string[]; processes: string }> {
  const tables = (await box.must(['nft', 'list', 'tables'])).split('\n').filter((l) => / wgcp$/.test(l));
  const marked = (await box.must(sh('for d in /sys/class/net/*; do [ "$(cat $d/ifalias)" = wgcp-managed ] && echo "${d##*/}"; done; true'))).split('\n').filter(Boolean);
  const processes = (await box.run(['pgrep', '-a', '-u', 'wgcp'])).stdout.trim();
  return { tables, marked, processes };
}

if (runs) {
  // Set-up as the first behaviour (not a before hook) so that a failure says why.
  t('two builds of the debs and a fresh Debian trixie root booting its own systemd', async () => {
    const [v1, v2] = [await buildDebs(), await buildDebs(V2)];
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-root-'));
    const root = await freshDebianRoot(path.join(scratch, 'root'));
    assert.match(fs.readFileSync(path.join(root, 'etc/os-release'), 'utf8'), /trixie/);
    // A container with loopback alone is never "online": nothing would ever wait it out.
    fs.symlinkSync('/dev/null', path.join(root, 'etc/systemd/system/systemd-networkd-wait-online.service'));
    box = await Container.boot(root, `wgcp-pkg-${process.pid}`, { [v1]: '/packages/v1', [v2]: '/packages/v2' });
    assert.match((await box.must(['node', '--version'])).trim(), /^v2\d\./, 'the target Node is 20 or later');
  });
  t.after(async () => {
    await box?.destroy();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  t('apt installs the deb with Debian\'s own nodejs 20, and makes the user, state folder, salt, TLS pair and an API key printed once and kept 0600', async () => {
    const out = await box.must(sh('apt-get install -y /packages/v1/wgcp_*.deb'));
    assert.match(await box.must(['dpkg-query', '-W', '-f', '${Version}', 'nodejs']), /^20\./, 'trixie\'s nodejs');
    key = (await box.must(['cat', '/var/lib/wgcp/api-key'])).trim();
    assert.match(key, /^\S{20,}$/);
    assert.ok(out.includes(key), 'the key is printed by the install');
    assert.is(await fileStat('/var/lib/wgcp/api-key'), '600 wgcp wgcp');
    assert.is(await fileStat('/var/lib/wgcp'), '700 wgcp wgcp');
    assert.is(await fileStat('/var/lib/wgcp/server-salt'), '600 wgcp wgcp');
    assert.match((await box.must(['cat', '/var/lib/wgcp/server-salt'])).trim(), /^[0-9a-f]{64}$/);
    assert.is(await fileStat('/etc/wgcp/tls/wgcpd.key'), '640 root wgcp');
    assert.match(await box.must(['openssl', 'x509', '-in', '/etc/wgcp/tls/wgcpd.crt', '-noout', '-subject']), /CN/);
    assert.is(await fileStat('/etc/wgcp/wgcpd.env'), '600 root root');
    assert.match(await box.must(['dpkg-query', '-W', '-f', '${Conffiles}', 'wgcp']), /\/etc\/wgcp\/wgcpd\.env/);
  });

  t('the install turns IPv6 forwarding on router-wide from the package\'s sysctl.d file (Debian\'s kernels forward IPv6 no other way)', async () => {
    assert.match(await box.must(['cat', '/usr/lib/sysctl.d/60-wgcp.conf']), /^net\.ipv6\.conf\.all\.forwarding = 1$/m);
    assert.is((await box.must(['cat', '/proc/sys/net/ipv6/conf/all/forwarding'])).trim(), '1');
  });

  t('systemd starts wgcpd as a notify service once the API answers, with the installed unit as it is', async () => {
    const u = await box.until('wgcpd active', async () => {
      const p = await box.unit('wgcpd.service', ['ActiveState', 'SubState', 'Type', 'NotifyAccess', 'StatusText', 'UnitFileState', 'WatchdogUSec', 'Restart']);
      return p.ActiveState === 'active' ? p : p.ActiveState === 'failed' ? p : undefined;
    });
    assert.is(u.ActiveState, 'active', JSON.stringify(u));
    assert.is(u.Type, 'notify');
    assert.is(u.NotifyAccess, 'all');
    assert.is(u.UnitFileState, 'enabled');
    assert.is(u.Restart, 'on-failure');
    assert.is(u.WatchdogUSec, '30s');
    assert.match(u.StatusText, /wgcpd is listening on 127\.0\.0\.1:8080/);
    const verify = await box.run(['systemd-analyze', 'verify', '/usr/lib/systemd/system/wgcpd.service']);
    assert.is(verify.code, 0, verify.stderr);
    assert.not.match(verify.stderr, /wgcpd\.service/);
  });

  t('wgcpd runs as wgcp with CAP_NET_ADMIN alone, no new privileges and a seccomp filter', async () => {
    const status = await box.must(['cat', `/proc/${await mainPid()}/status`]);
    const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1] ?? '';
    const uid = (await box.must(['id', '-u', 'wgcp'])).trim();
    assert.is(field('Uid').split(/\s+/)[0], uid);
    assert.is(field('CapEff'), '0000000000001000', 'CAP_NET_ADMIN is bit 12');
    assert.is(field('CapBnd'), '0000000000001000');
    assert.is(field('NoNewPrivs'), '1');
    assert.is(field('Seccomp'), '2');
  });

  t('/healthz reports the package version, the key from the install works, and the kernel is driven', async () => {
    const h = await healthy(V1);
    assert.is(h.status, 'ok');
    assert.is(h.kernel, 'on', `wg, nft and wireguard-go work with the unit's privileges: ${JSON.stringify(h)}`);
    assert.is((await api('GET', '/api/servers', { key: 'wgk_not-a-key-at-all-000000' })).status, 401);
    const made = await api('POST', '/api/servers', { key, body: { name: 'home', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward' } });
    assert.is(made.status, 201, JSON.stringify(made.json));
    ifname = made.json.interface;
    assert.ok((await box.must(['wg', 'show', 'interfaces'])).includes(ifname), 'the WireGuard interface exists');
    assert.is((await box.must(['wgcp', '--version'])).trim(), `wgcp ${V1}`);
  });

  t('a forward server\'s peer reaches an IPv6 host beyond the router through the tunnel, under the unit\'s sandbox, and wgcpd wrote nothing in /proc/sys', async () => {
    await buildWorld(box);
    // A bandwidth limit too: its IFB and netdev wgcp are what removal must take later.
    const peer = await api('POST', '/api/servers/1/peers', { key, body: { name: 'phone', allowInternet: true, downloadLimitMbps: 50 } });
    assert.is(peer.status, 201, JSON.stringify(peer.json));
    assert.ok(peer.json.ip6, 'a forward server gives its peers IPv6');
    await clientUp(box, String((await api('GET', `/api/peers/${peer.json.id}/config`, { key })).json));
    assert.ok(await pingsInternet6(box), 'an IPv6 ping crossed the tunnel and the router');
    assert.match(await box.must(['journalctl', '-u', 'wgcpd', '--no-pager', '-o', 'cat']), /IPv6 forwarding is on router-wide/);
    // Kernels from 6.17 have the per-interface flag: wgcpd found forwarding on and left it.
    const force = await box.run(['cat', `/proc/sys/net/ipv6/conf/${ifname}/force_forwarding`]);
    if (force.code === 0) assert.is(force.stdout.trim(), '0');
  });

  t('no repair repeats: over passes of the 2 s forwarding check no audit row and no drift warning is added', async () => {
    const [rows, warned, checked] = [await repairRows(), await journalRepairs(), await ipv6Checks()];
    assert.ok(checked > 0, 'the forwarding check runs');
    // The fourth begun, so three passes ended: each would have "repaired" again.
    await box.until('three more forwarding checks', async () => ((await ipv6Checks()) >= checked + 4 ? true : undefined));
    assert.is(await repairRows(), rows);
    assert.is(await journalRepairs(), warned);
  });

  t('with the sysctl file masked, on a kernel with per-interface force_forwarding (6.17+), wgcpd forwards its own interface under the sandbox', async () => {
    const flag = `/proc/sys/net/ipv6/conf/${ifname}/force_forwarding`;
    if ((await box.run(['test', '-e', flag])).code !== 0) return; // Debian's 6.12: router-wide is the only way
    // The owner's part then: replies come in on the uplink, which must forward too.
    await box.must(sh('ln -s /dev/null /etc/sysctl.d/60-wgcp.conf && sysctl -q -w net.ipv6.conf.all.forwarding=0 && sysctl -q -w net.ipv6.conf.wan0.force_forwarding=1'));
    try {
      // all.forwarding=0 reset every force_forwarding: the 2 s check finds it off and writes it.
      await box.until('force_forwarding on again', async () => ((await box.must(['cat', flag])).trim() === '1' ? true : undefined));
      assert.ok(await pingsInternet6(box), 'forwarded per interface');
    } finally {
      await box.must(sh('rm /etc/sysctl.d/60-wgcp.conf && /usr/lib/systemd/systemd-sysctl 60-wgcp.conf'));
    }
  });

  t('wgcp check, run by root, reads the kernel with the daemon\'s privileges and finds it as the database says', async () => {
    // The uplink's default route came after wgcpd started: it follows routes every 30 s.
    await box.until('wgcpd follows the new uplink', async () => ((await box.must(['nft', 'list', 'set', 'inet', 'wgcp', 'wan_ifaces'])).includes('"wan0"') ? true : undefined), 45_000);
    const r = await box.run(['wgcp', 'check']);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /holds what the database says/);
    assert.is((await box.must(sh('find /var/lib/wgcp ! -user wgcp'))).trim(), '', 'every file of the data folder is still wgcp\'s');
  });

  t('systemctl restart ends the old daemon and all its children (KillMode control-group), and records no repair', async () => {
    const [before, rows] = [await wgcpProcesses(), await repairRows()];
    assert.ok(before.length >= 2, 'wgcpd and its wireguard-go');
    await box.must(['systemctl', 'restart', 'wgcpd']);
    await healthy(V1);
    const after = await wgcpProcesses();
    assert.equal(before.filter((pid) => after.includes(pid)), [], 'nothing of the old daemon is left');
    assert.is(await repairRows(), rows);
  });

  t('systemctl restart with an event stream open: the daemon closes the stream and ends on SIGTERM by itself', async () => {
    fs.writeFileSync(path.join(box.root, 'root', 'ws.js'), WS_CLIENT);
    await box.must(sh(`node /root/ws.js '${key}' ${port} >/root/ws.out 2>&1 &`));
    await box.until('the event stream open', async () => ((await box.run(['cat', '/root/ws.out'])).stdout.includes(' 101 ') ? true : undefined));
    const cursor = /cursor: (\S+)/.exec(await box.must(['journalctl', '-u', 'wgcpd', '-n', '0', '--show-cursor']))![1];
    // Past 15 s systemd kills it (90 s unless set): the test stays short, and the journal says so.
    const dropIn = '/run/systemd/system/wgcpd.service.d';
    await box.must(sh(`mkdir -p ${dropIn} && printf '[Service]\\nTimeoutStopSec=15\\n' > ${dropIn}/test-stop.conf && systemctl daemon-reload`));
    try {
      await box.must(['systemctl', 'restart', 'wgcpd']);
    } finally {
      await box.must(sh(`rm -rf ${dropIn} && systemctl daemon-reload`));
    }
    const journal = await box.must(['journalctl', '-u', 'wgcpd', '--no-pager', `--after-cursor=${cursor}`]);
    assert.not.match(journal, /timed out|SIGKILL|Killing process/, journal);
    assert.match((await box.must(['cat', '/root/ws.out'])), /^closed$/m, 'the daemon closed the stream');
    await healthy(V1);
  });

  t('a crash is restarted (Restart=on-failure) with the data intact', async () => {
    const before = await mainPid();
    // A crash from outside systemd's own requests (a `systemctl kill` counts as wanted).
    await box.must(sh(`kill -KILL ${before}`));
    await box.until('a new wgcpd', async () => {
      const p = await box.unit('wgcpd.service', ['ActiveState', 'MainPID']);
      return p.ActiveState === 'active' && Number(p.MainPID) !== before && Number(p.MainPID) > 0 ? true : undefined;
    });
    assert.ok(Number((await box.unit('wgcpd.service', ['NRestarts'])).NRestarts) >= 1);
    await healthy(V1);
    assert.is((await api('GET', '/api/servers', { key })).json[0].name, 'home');
  });

  t('the watchdog pings keep wgcpd alive, and a stopped event loop gets it restarted', async () => {
    const dropIn = '/run/systemd/system/wgcpd.service.d';
    await box.must(sh(`mkdir -p ${dropIn} && printf '[Service]\\nWatchdogSec=3\\n' > ${dropIn}/test-watchdog.conf && systemctl daemon-reload && systemctl restart wgcpd`));
    try {
      const restarts = async () => Number((await box.unit('wgcpd.service', ['NRestarts'])).NRestarts);
      // systemd's own record of the last ping: pings it received over more than two 3 s
      // periods, with no restart between, are the positive signal (a missed one would have
      // restarted wgcpd by then).
      const watchdog = () => box.unit('wgcpd.service', ['NRestarts', 'MainPID', 'WatchdogTimestampMonotonic']);
      const first = await box.until('a first watchdog ping', async () => {
        const u = await watchdog();
        return Number(u.WatchdogTimestampMonotonic) > 0 ? u : undefined;
      });
      const start = Number(first.NRestarts);
      const later = await box.until('pings over two watchdog periods', async () => {
        const u = await watchdog();
        return Number(u.WatchdogTimestampMonotonic) - Number(first.WatchdogTimestampMonotonic) > 2 * 3_000_000 ? u : undefined;
      });
      assert.equal([later.NRestarts, later.MainPID], [first.NRestarts, first.MainPID], 'pings every 1.5 s keep a 3 s watchdog satisfied');
      await box.must(['systemctl', 'kill', '--kill-whom=main', '--signal=SIGSTOP', 'wgcpd.service']);
      await box.until('a watchdog restart', async () => ((await restarts()) > start ? true : undefined), 30_000);
      assert.match(await box.must(['journalctl', '-u', 'wgcpd', '--no-pager']), /[Ww]atchdog timeout/);
      await healthy(V1);
    } finally {
      await box.must(sh(`rm -rf ${dropIn} && systemctl daemon-reload && systemctl restart wgcpd`));
    }
  });

  t('an upgrade keeps the data, the keys, the salt, the TLS pair and the edited configuration', async () => {
    await box.must(sh("sed -i 's/^WGCP_LISTEN=.*/WGCP_LISTEN=127.0.0.1:8089/' /etc/wgcp/wgcpd.env && systemctl restart wgcpd"));
    port = 8089;
    await healthy(V1);
    const files = ['/var/lib/wgcp/server-salt', '/var/lib/wgcp/api-key', '/etc/wgcp/tls/wgcpd.key', '/etc/wgcp/tls/wgcpd.crt'];
    const before = await Promise.all(files.map(sha));
    const out = await box.must(sh('apt-get install -y /packages/v2/wgcp_*.deb'));
    assert.not.match(out, /first API key/);
    await healthy(V2);
    assert.equal(await Promise.all(files.map(sha)), before);
    assert.is((await api('GET', '/api/servers', { key })).json[0].name, 'home');
    assert.is((await box.must(['wgcp', '--version'])).trim(), `wgcp ${V2}`);
    assert.is((await box.must(['wgcp', 'apikey', 'list'])).includes('package-install'), true);
  });

  t('the agent package installs, waits for its config, and provisions against the daemon', async () => {
    await box.must(sh('dpkg -i /packages/v1/wgcp-agent_*_all.deb'));
    assert.is((await box.must(['wgcp-agent', '--version'])).trim(), agentVersion());
    const idle = await box.unit('wgcp-agent.service', ['ConditionResult', 'ActiveState', 'UnitFileState']);
    assert.equal([idle.ConditionResult, idle.ActiveState, idle.UnitFileState], ['no', 'inactive', 'enabled']);
    const token = await api('POST', '/api/servers/1/tokens', { key, body: {} });
    assert.is(token.status, 201, JSON.stringify(token.json));
    const config = {
      server_url: `http://127.0.0.1:${port}`, token: token.json.token, hwid: 'packaging-test-device',
      server_salt: (await box.must(['cat', '/var/lib/wgcp/server-salt'])).trim(), interface: 'wgcpa0',
    };
    await box.must(sh(`umask 027 && printf '%s' '${JSON.stringify(config)}' > /etc/wgcp-agent/config.json && chgrp wgcp-agent /etc/wgcp-agent/config.json && systemctl start wgcp-agent`));
    const devices = await box.until('the device provisioned', async () => {
      const d = await api('GET', '/api/devices', { key });
      return Array.isArray(d.json) && d.json.length === 1 ? d.json : undefined;
    }, 60_000);
    const status = JSON.parse(await box.must(['wgcp-agent', 'status', '--config', '/etc/wgcp-agent/config.json']));
    // The agent's device_id is the device's uuid (shown whole to admins, else its first 8 characters).
    const shown: string = devices[0].uuid ?? devices[0].uuidPrefix;
    assert.ok(shown.length >= 8 && status.device_id.startsWith(shown), `${status.device_id} is ${shown}`);
    await box.must(['dpkg', '-P', 'wgcp-agent']);
    assert.not.ok(await exists('/var/lib/wgcp-agent'));
    assert.not.ok(await exists('/etc/wgcp-agent'));
  });

  t('remove stops wgcpd and takes what it made in the kernel, only that; it keeps the data and configuration, and a reinstall finds them', async () => {
    // What is not wgcp's: a link named like its own but unmarked, another alias, another table.
    await box.must(sh('ip link add wgcp9 type veth peer name other0 && ip link set other0 alias not-wgcp && nft add table inet other'));
    const made = await kernelLeftovers();
    assert.equal(made.tables.sort(), ['table inet wgcp', 'table netdev wgcp']);
    assert.ok(made.marked.includes(ifname) && made.marked.some((l) => l.startsWith('wgifb')), made.marked.join(' '));
    await box.must(['dpkg', '-r', 'wgcp']);
    assert.is((await box.unit('wgcpd.service', ['ActiveState'])).ActiveState, 'inactive');
    assert.equal(await kernelLeftovers(), { tables: [], marked: [], processes: '' });
    const links = await box.must(['ip', '-o', 'link', 'show']);
    for (const kept of ['wgcp9@other0', 'other0@wgcp9']) assert.ok(links.includes(kept), kept);
    assert.match(await box.must(['nft', 'list', 'tables']), /table inet other/);
    assert.not.ok(await exists('/usr/lib/wgcp'));
    for (const f of ['/var/lib/wgcp/wgcp.db', '/var/lib/wgcp/api-key', '/var/lib/wgcp/server-salt', '/etc/wgcp/wgcpd.env', '/etc/wgcp/tls/wgcpd.key']) {
      assert.ok(await exists(f), `${f} is kept`);
    }
    const out = await box.must(sh('dpkg -i /packages/v2/wgcp_*.deb'));
    assert.not.match(out, /first API key/);
    await healthy(V2);
    assert.is((await api('GET', '/api/servers', { key })).json[0].name, 'home');
  });

  t('purge deletes the data, the keys and the configuration, and leaves no table, link or process of wgcp', async () => {
    assert.ok((await kernelLeftovers()).tables.length > 0, 'the reinstalled daemon made its tables again');
    await box.must(['dpkg', '-P', 'wgcp']);
    assert.equal(await kernelLeftovers(), { tables: [], marked: [], processes: '' });
    for (const f of ['/var/lib/wgcp', '/etc/wgcp', '/usr/lib/wgcp']) assert.not.ok(await exists(f), `${f} is gone`);
    assert.is((await box.unit('wgcpd.service', ['LoadState'])).LoadState, 'not-found');
  });
}

t.run();
