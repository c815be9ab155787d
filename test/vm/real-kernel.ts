// The real-kernel checks, run inside the VM (test/kernel-vm.test.ts boots it with
// test/vm/boot.ts): wgcpd on Debian's own kernel, with the kernel's WireGuard module, and the
// paths only a real kernel shows. Each check is one behaviour; they run in order on one world
// and each result (passed, or the error) goes to the run folder as JSON, which the suite on
// the host reports one test a check. Run alone: node dist/test/vm/real-kernel.js <results.json>
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import type { Netns } from '../helpers/netns';
import { CLI, ENDPOINT_IP, INTERNET, INTERNET6, KernelClient, pingsBeside, pingsSoon, rootNamespace, sitePeer, startVmDaemon, wanHost, type VmDaemon } from './router-world';

export interface CheckResult { name: string; ok: boolean; error?: string; ms: number }
export interface VmResults { kernel: string; daemonStartMs: number[]; checks: CheckResult[] }

interface World {
  router: Netns;
  internet: Netns;
  d: VmDaemon;
  server: { id: number; interface: string; prefix: string; address6: string };
  clients: Record<'a' | 'b', KernelClient>;
  hq: ReturnType<typeof sitePeer>;
  peers: Record<'a' | 'b', { id: number; ip: string; ip6: string; publicKey: string }>;
}
const w = {} as World;
const startTimes: number[] = [];
const server4 = '10.77.0.1';
const server6 = (): string => w.server.address6.split('/')[0];
const linkIndex = (ifname: string): string => fs.readFileSync(`/sys/class/net/${ifname}/ifindex`, 'utf8').trim();
const sysctl = (key: string): string | null => { try { return fs.readFileSync(`/proc/sys/${key.replace(/\./g, '/')}`, 'utf8').trim(); } catch { return null; } };
const until = async (what: string, ok: () => boolean | Promise<boolean>, limitMs = 60_000): Promise<void> => {
  const deadline = Date.now() + limitMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/** A counter of wgcpd's /metrics for one kind (0 before its first count). */
async function metric(name: string, kind: string): Promise<number> {
  const res = await w.d.api('GET', '/metrics');
  assert.is(res.status, 200, res.text);
  return Number(new RegExp(`^${name}\\{kind="${kind}"\\} (\\d+)`, 'm').exec(res.text)?.[1] ?? 0);
}

async function addPeer(name: 'a' | 'b', index: number, body: Record<string, unknown>): Promise<void> {
  const res = await w.d.api('POST', `/api/servers/${w.server.id}/peers`, { name, ...body });
  assert.is(res.status, 201, res.text);
  w.peers[name] = res.json;
  w.clients[name] = new KernelClient(`vm${name}`, w.router, index);
  const conf = await w.d.api('GET', `/api/peers/${res.json.id}/config`);
  w.clients[name].up(conf.text, ['10.77.0.0/24', w.server.prefix, `${INTERNET}/32`, `${INTERNET6}/128`]);
}

export const CHECKS: Array<[string, () => Promise<void> | void]> = [
  ['wgcpd starts on the kernel\'s WireGuard module: a forward server with IPv6 is a `wireguard` link marked as wgcp\'s, and no wireguard-go runs', async () => {
    w.router = rootNamespace();
    w.router.exec('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
    w.internet = wanHost(w.router).internet;
    w.router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
    w.d = await startVmDaemon();
    startTimes.push(w.d.startMs);
    assert.match(w.d.output(), /kernel backend is ON.*"wireguard":"kernel"/);
    const s = await w.d.api('POST', '/api/servers', { name: 'vm', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward', address: `${server4}/24` });
    assert.is(s.status, 201, s.text);
    w.server = { id: s.json.id, interface: s.json.interface, address6: s.json.address6, prefix: s.json.address6.replace(/::1\/64$/, '::/64') };
    const link = w.router.exec('ip', ['-d', 'link', 'show', 'dev', w.server.interface]);
    assert.match(link, /\n\s+wireguard /, link);
    assert.match(link, 'alias wgcp-managed');
    assert.is(execFileSync('sh', ['-c', 'pgrep -x wireguard-go || true'], { encoding: 'utf8' }).trim(), '');
    w.clients = {} as World['clients'];
    w.peers = {} as World['peers'];
    await addPeer('a', 1, { allowInternet: true });
    await addPeer('b', 2, {});
  }],
  ['a kernel-module client handshakes and reaches the server\'s tunnel addresses over IPv4 and IPv6', () => {
    assert.ok(pingsSoon(w.clients.a.ns, server4), 'a → server over IPv4');
    assert.ok(pingsSoon(w.clients.a.ns, server6()), 'a → server over IPv6');
    assert.ok(pingsSoon(w.clients.b.ns, server6()), 'b → server over IPv6');
    const dump = w.router.exec('wg', ['show', w.server.interface, 'latest-handshakes']);
    assert.match(dump, new RegExp(`${w.peers.a.publicKey.replace(/[+/]/g, '\\$&')}\\t[1-9]`), dump);
  }],
  ['this kernel has no per-interface force_forwarding: with all.forwarding 0 the log says IPv6 is not forwarded, a peer\'s IPv6 does not leave while its IPv4 does, and the reconciler takes that for no drift', async () => {
    assert.is(sysctl(`net.ipv6.conf.${w.server.interface}.force_forwarding`), null, 'a kernel before 6.17');
    // Before 6.17 an interface's own `forwarding` routes nothing: wgcp writes nothing there.
    assert.is(sysctl(`net.ipv6.conf.${w.server.interface}.forwarding`), '0', 'nothing written where no per-interface switch exists');
    assert.is(sysctl('net.ipv6.conf.all.forwarding'), '0');
    assert.match(w.d.output(), /IPv6 from this tunnel is not forwarded: the kernel has no per-interface force_forwarding/);
    assert.ok(pingsSoon(w.clients.a.ns, INTERNET), 'IPv4 to the WAN host, masqueraded');
    assert.is(pingsBeside(w.clients.a.ns, INTERNET6, server6()), false, 'IPv6 is not routed');
    // Nothing to repair there: three compares of IPv6 forwarding (every 2 s) leave it alone.
    const checksBefore = await metric('wgcp_kernel_drift_checks_total', 'ipv6');
    await until('three IPv6 forwarding compares', async () => await metric('wgcp_kernel_drift_checks_total', 'ipv6') >= checksBefore + 3);
    assert.is(await metric('wgcp_kernel_drift_repairs_total', 'ipv6'), 0, 'no IPv6 forwarding repair');
    assert.is(await metric('wgcp_kernel_repair_failing', 'ipv6'), 0, 'no failing IPv6 forwarding repair');
  }],
  ['with the operator\'s all.forwarding=1 a peer reaches the WAN host over IPv6 too, and no repair follows', async () => {
    const repairsBefore = await metric('wgcp_kernel_drift_repairs_total', 'ipv6');
    const repairLines = (): number => (w.d.output().match(/kernel drift repaired|could not be repaired/g) ?? []).length;
    const linesBefore = repairLines();
    w.router.exec('sysctl', ['-q', '-w', 'net.ipv6.conf.all.forwarding=1']);
    const checksBefore = await metric('wgcp_kernel_drift_checks_total', 'ipv6');
    assert.ok(pingsSoon(w.clients.a.ns, INTERNET6), 'IPv6 to the WAN host');
    // Three compares of IPv6 forwarding (every 2 s) pass over the fallback's state without calling it drift.
    await until('three IPv6 forwarding compares', async () => await metric('wgcp_kernel_drift_checks_total', 'ipv6') >= checksBefore + 3);
    assert.is(await metric('wgcp_kernel_drift_repairs_total', 'ipv6'), repairsBefore, w.d.output().slice(-2000));
    assert.is(repairLines(), linesBefore, w.d.output().slice(-2000));
  }],
  ['peers are isolated from each other in both families until allowAccess says so, then one way only', async () => {
    assert.is(pingsBeside(w.clients.a.ns, w.peers.b.ip, server4), false, 'a → b over IPv4');
    assert.is(pingsBeside(w.clients.a.ns, w.peers.b.ip6, server6()), false, 'a → b over IPv6');
    const res = await w.d.api('PUT', `/api/peers/${w.peers.a.id}`, { allowAccess: [w.peers.b.id] });
    assert.is(res.status, 200, res.text);
    assert.ok(pingsSoon(w.clients.a.ns, w.peers.b.ip), 'a → b over IPv4, allowed');
    assert.ok(pingsSoon(w.clients.a.ns, w.peers.b.ip6), 'a → b over IPv6, allowed');
    assert.is(pingsBeside(w.clients.b.ns, w.peers.a.ip, server4), false, 'b → a stays closed (a new connection)');
  }],
  ['a bandwidth limit makes HTB classes on the interface and on its IFB, and traffic still passes', async () => {
    const res = await w.d.api('PUT', `/api/peers/${w.peers.b.id}`, { downloadLimitMbps: 5, uploadLimitMbps: 2 });
    assert.is(res.status, 200, res.text);
    const down = w.router.exec('tc', ['class', 'show', 'dev', w.server.interface]);
    assert.match(down, /class htb .* rate 5Mbit/, down);
    const ifb = /fwd to "([^"]+)"/.exec(w.router.exec('nft', ['list', 'table', 'netdev', 'wgcp']))?.[1];
    assert.ok(ifb, 'an IFB is named in table netdev wgcp');
    assert.match(w.router.exec('ip', ['-d', 'link', 'show', 'dev', ifb!]), /\n\s+ifb /);
    assert.match(w.router.exec('tc', ['class', 'show', 'dev', ifb!]), /class htb .* rate 2Mbit/);
    assert.ok(pingsSoon(w.clients.b.ns, server4));
  }],
  ['a kernel link deleted under the daemon comes back with its peers, and the tunnel carries traffic again', async () => {
    const before = linkIndex(w.server.interface);
    w.router.exec('ip', ['link', 'del', 'dev', w.server.interface]);
    await until('the link is back', () => fs.existsSync(`/sys/class/net/${w.server.interface}`) && linkIndex(w.server.interface) !== before);
    await until('the repair is logged', () => /kernel drift repaired/.test(w.d.output()));
    assert.is(w.router.exec('wg', ['show', w.server.interface, 'peers']).trim().split('\n').length, 2, 'both peers are back');
    // The client still holds the old link's session: it makes a new handshake once its data
    // has gone unanswered for 15 s (WireGuard's keepalive + rekey timeouts).
    assert.ok(pingsSoon(w.clients.a.ns, server4, 30), 'a → server over IPv4 after the repair');
    assert.ok(pingsSoon(w.clients.a.ns, server6()), 'a → server over IPv6 after the repair');
  }],
  ['a site link (this router joined another) deleted under the daemon is made again on the kernel\'s WireGuard, counted as siteLink drift, and carries traffic again', async () => {
    w.hq = sitePeer(w.router, 9);
    // What `wgcp join` posts once the other router answered (src/cli/join.ts).
    const res = await w.d.api('POST', '/api/site-links', w.hq.linkBody);
    assert.is(res.status, 201, res.text);
    const ifname = res.json.interface as string;
    w.hq.accept(res.json.publicKey);
    assert.match(w.router.exec('ip', ['-d', 'link', 'show', 'dev', ifname]), /\n\s+wireguard /, 'the kernel\'s module, not wireguard-go');
    assert.ok(pingsSoon(w.router, '10.88.0.1'), 'the other router answers through the link');
    const before = linkIndex(ifname);
    const repairs = await metric('wgcp_kernel_drift_repairs_total', 'siteLink');
    w.router.exec('ip', ['link', 'del', 'dev', ifname]);
    await until('the site link is back', () => fs.existsSync(`/sys/class/net/${ifname}`) && linkIndex(ifname) !== before);
    await until('counted as a siteLink repair', async () => await metric('wgcp_kernel_drift_repairs_total', 'siteLink') > repairs);
    assert.match(w.router.exec('ip', ['-d', 'link', 'show', 'dev', ifname]), /alias wgcp-managed/);
    assert.match(w.router.exec('ip', ['route', 'show', 'dev', ifname]), /^10\.88\.0\.0\/24 /m, 'its route back');
    // The new device starts the handshake itself (the link's endpoint and keepalive); the other end follows its new port.
    assert.ok(pingsSoon(w.router, '10.88.0.1', 30), 'through the link again');
  }],
  ['`wgcp check` finds the kernel as the database says (exit 0)', () => {
    const out = execFileSync(process.execPath, [CLI, '--data-dir', w.d.dataDir, 'check'], { encoding: 'utf8' });
    assert.ok(out.length > 0);
  }],
  ['stopping wgcpd with clients connected ends with exit 0; the kernel link keeps serving, and a restart keeps the same link', async () => {
    const index = linkIndex(w.server.interface);
    const stopped = await w.d.stop();
    assert.equal([stopped.code, stopped.signal], [0, null], w.d.output().slice(-2000));
    assert.ok(pingsSoon(w.clients.a.ns, server4), 'the kernel serves the tunnel without the daemon');
    w.d = await startVmDaemon(w.d.dataDir);
    startTimes.push(w.d.startMs);
    assert.is(linkIndex(w.server.interface), index, 'the same link, not made again');
    assert.ok(pingsSoon(w.clients.a.ns, server6()), 'a → server over IPv6 after the restart');
    assert.ok(pingsSoon(w.router, '10.88.0.1', 30), 'the site link up again after the restart');
    assert.is((await w.d.stop()).code, 0);
  }],
];

async function main(out: string): Promise<void> {
  const results: VmResults = { kernel: execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim(), daemonStartMs: startTimes, checks: [] };
  let broken = false;
  for (const [name, fn] of CHECKS) {
    const t0 = Date.now();
    if (broken) { results.checks.push({ name, ok: false, error: 'not run: an earlier check failed', ms: 0 }); continue; }
    try {
      await fn();
      results.checks.push({ name, ok: true, ms: Date.now() - t0 });
    } catch (err) {
      const e = err as Error & { details?: string; cause?: unknown };
      results.checks.push({ name, ok: false, error: `${e.message}${e.cause ? ` (${String(e.cause)})` : ''}${e.details ? `\n${e.details}` : ''}\n${(e.stack ?? '').split('\n').slice(1, 4).join('\n')}`, ms: Date.now() - t0 });
      // The checks build on each other (one world): after the first failure the rest would tell nothing.
      broken = true;
      if (w.d) results.checks[results.checks.length - 1].error += `\n--- wgcpd ---\n${w.d.output().slice(-3000)}`;
    }
    const last = results.checks[results.checks.length - 1];
    console.log(`${last.ok ? 'ok  ' : 'FAIL'} ${name} (${(last.ms / 1000).toFixed(1)} s)${last.ok ? '' : `\n${last.error}`}`);
    fs.writeFileSync(out, JSON.stringify(results, null, 1));
  }
  if (w.d) await w.d.stop().catch(() => undefined);
  fs.writeFileSync(out, JSON.stringify(results, null, 1));
  process.exit(results.checks.every((c) => c.ok) ? 0 : 1);
}

if (require.main === module) void main(process.argv[2] ?? '/run/wgcp-vm/results.json');
