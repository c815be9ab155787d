// IPv6 forwarding where the daemon cannot write /proc/sys, as under systemd's
// ProtectKernelTunables=yes: wgcpd in a router namespace (real nft and wireguard-go), in a
// mount namespace of its own where /proc/sys is read-only; the test's own shell, outside it,
// plays the operator (or the package's sysctl.d). A repair that cannot succeed is said once
// and waits with back-off, shows in /healthz, /metrics and the daemon's `wgcp check`, and
// clears when the drift is gone; forwarding already on is taken as it is.
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, wgcpCheck, type NsDaemon } from './helpers/ns-daemon';
import { eventually } from './helpers/receiver';

const t = suiteNeeding('kernel: IPv6 forwarding under a read-only /proc/sys', ['ip', 'nft', 'wg', 'wireguard-go', 'nsenter', 'unshare', 'mount', 'sysctl'], { root: true });

const w = {} as { router: Netns; d: NsDaemon; ifname: string };

async function metric(name: string, kind: string): Promise<number> {
  const m = new RegExp(`^${name}\\{kind="${kind}"\\} (\\d+)$`, 'm').exec((await w.d.api('GET', '/metrics')).text);
  if (!m) throw new Error(`no ${name}{kind="${kind}"} in /metrics`);
  return Number(m[1]);
}
const failing = () => metric('wgcp_kernel_repair_failing', 'ipv6');
const checks = () => metric('wgcp_kernel_drift_checks_total', 'ipv6');

async function reconcilerAudits(): Promise<{ summary: Record<string, unknown> }[]> {
  const res = await w.d.api('GET', '/api/audit?actor=reconciler&action=kernel.repair');
  assert.is(res.status, 200, res.text);
  return res.json.entries;
}
const lines = (text: string) => w.d.output().split(text).length - 1;
const sysctl = (key: string) => w.router.exec('sysctl', ['-n', key]).trim();
const health = async () => (await w.d.api('GET', '/healthz')).json;

async function forwardServer(name: string, port: number, subnet: string): Promise<string> {
  const s = await w.d.api('POST', '/api/servers', { name, endpoint: `192.0.2.1:${port}`, mode: 'forward', address: `${subnet}.1/24` });
  assert.is(s.status, 201, s.text);
  assert.ok(s.json.address6, 'the server has an IPv6 address');
  return s.json.interface;
}

t.before(async () => {
  w.router = new Netns('ro6');
  w.router.exec('ip', ['address', 'add', '192.0.2.1/32', 'dev', 'lo']);
  w.router.exec('sysctl', ['-q', '-w', 'net.ipv6.conf.all.forwarding=0']);
  w.d = await startNsDaemon(w.router, { readOnlySysctl: true });
  assert.throws(() => w.d.exec('sh', ['-c', 'echo 1 > /proc/sys/net/ipv6/conf/lo/force_forwarding']), /Read-only/, 'the daemon\'s /proc/sys is read-only');
});

t.after(async () => {
  await w.d?.stop();
  w.router?.destroy();
});

t('forwarding that cannot be turned on: said once (one log line, one audit row) over several periods, /healthz degraded with why, the gauge at 1', async () => {
  w.ifname = await forwardServer('ro', 51861, '10.86.1');
  assert.is(sysctl(`net.ipv6.conf.${w.ifname}.force_forwarding`), '0');
  await eventually('the failure is seen', async () => ((await failing()) === 1 ? true : undefined), 15_000);
  const before = await checks();
  // Six link compares, two seconds apart: the back-off's first retry (after 5 s) falls among them.
  await eventually('six more compares', async () => ((await checks()) >= before + 6 ? true : undefined), 30_000);
  const audits = await reconcilerAudits();
  assert.is(audits.length, 1, JSON.stringify(audits));
  const [failed] = audits[0].summary.failed as { kind: string; interface: string; reason: string }[];
  assert.equal([failed.kind, failed.interface], ['ipv6', w.ifname]);
  assert.match(failed.reason, /read-only/);
  assert.is(lines('a kernel drift cannot be repaired'), 1, w.d.output());
  assert.is(lines('kernel drift repaired'), 0, 'nothing pretends to be repaired');
  const h = await health();
  assert.is(h.status, 'degraded');
  assert.is(h.failingRepairs.length, 1);
  assert.equal([h.failingRepairs[0].kind, h.failingRepairs[0].interface], ['ipv6', w.ifname]);
  assert.ok(h.failingRepairs[0].attempts >= 2, 'retried, with back-off');
  assert.ok(h.reasons.some((r: string) => r.includes(w.ifname) && /read-only/.test(r)), JSON.stringify(h.reasons));
  assert.is(await failing(), 1);
  assert.is(sysctl(`net.ipv6.conf.${w.ifname}.force_forwarding`), '0');
});

t('wgcp check without CAP_NET_ADMIN (as OpenWrt\'s wgcp) prints the daemon\'s report of the drift it cannot repair: exit 1, also with --json', () => {
  const found = wgcpCheck(w.d, [], { withoutCapabilities: true });
  assert.is(found.code, 1, found.out + found.err);
  assert.match(found.out, new RegExp(`^ipv6 +${w.ifname}: IPv6 forwarding is off$`, 'm'));
  assert.match(found.out, /^1 difference: wgcpd repairs them/m);
  const json = wgcpCheck(w.d, [], { withoutCapabilities: true, args: ['--json'] });
  assert.is(json.code, 1, json.out + json.err);
  assert.equal(JSON.parse(json.out), { same: false, differences: [{ kind: 'ipv6', summary: `${w.ifname}: IPv6 forwarding is off` }] });
});

t('turned on from outside (as the package\'s sysctl settings would): it clears, said in one line, with no write and no new audit row', async () => {
  w.router.exec('sysctl', ['-q', '-w', `net.ipv6.conf.${w.ifname}.force_forwarding=1`]);
  await eventually('the gauge back at 0', async () => ((await failing()) === 0 ? true : undefined), 15_000);
  const h = await health();
  assert.is(h.status, 'ok', JSON.stringify(h));
  assert.is(h.failingRepairs, undefined);
  assert.is(lines('a kernel drift that could not be repaired is gone'), 1);
  assert.is((await reconcilerAudits()).length, 1);
});

t('forwarding already on router-wide: a new forward server is taken as it is, with no write, no repair and no warning', async () => {
  w.router.exec('sysctl', ['-q', '-w', 'net.ipv6.conf.all.forwarding=1']);
  const other = await forwardServer('wide', 51862, '10.86.2');
  const before = await checks();
  await eventually('three more compares', async () => ((await checks()) >= before + 3 ? true : undefined), 20_000);
  assert.is(await failing(), 0);
  assert.is((await health()).status, 'ok');
  assert.is((await reconcilerAudits()).length, 1);
  assert.not.match(w.d.output(), new RegExp(`IPv6 from this tunnel is not forwarded[^\\n]*${other}`));
  assert.match(w.d.output(), new RegExp(`IPv6 forwarding is on router-wide[^\\n]*${other}`));
});

t.run();
