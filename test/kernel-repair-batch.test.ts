// Drift repair at the scale of an imported server: wgcpd in a router namespace with the real
// nft and wireguard-go, a wg-quick server imported whose peers have no preshared key (as most
// wg-quick configs), and every `wg` the daemon runs recorded by a wrapper on its PATH.
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { eventually } from './helpers/receiver';
import { toolLog, type ToolLog } from './helpers/tool-log';
import { wgQuickServer } from './import-support';
import { generateKeyPair } from '../src/wg/keys';

const t = suiteNeeding('kernel repair: peers without a preshared key, and many drifted peers in one batch', ['ip', 'nft', 'wg', 'wireguard-go', 'nsenter', 'unshare'], { root: true });

const PEERS = 60;
const DRIFTED = 50;
const w = {} as { router: Netns; d: NsDaemon; tools: ToolLog; ifname: string; keys: string[] };

async function metric(name: string, kind: string): Promise<number> {
  const m = new RegExp(`^${name}\\{kind="${kind}"\\} (\\d+)$`, 'm').exec((await w.d.api('GET', '/metrics')).text);
  if (!m) throw new Error(`no ${name}{kind="${kind}"} in /metrics`);
  return Number(m[1]);
}
const repairs = () => metric('wgcp_kernel_drift_repairs_total', 'peer');
const checks = () => metric('wgcp_kernel_drift_checks_total', 'peer');

async function reconcilerAudits(): Promise<number> {
  const res = await w.d.api('GET', '/api/audit?actor=reconciler&action=kernel.repair');
  assert.is(res.status, 200, res.text);
  return (res.json.entries as unknown[]).length;
}

/** Each peer's allowed IPs on the interface, by key. */
function allowedByKey(): Map<string, string> {
  const rows = w.d.exec('wg', ['show', w.ifname, 'allowed-ips']).trim().split('\n').filter(Boolean);
  return new Map(rows.map((r) => r.split('\t') as [string, string]));
}

/** `wg` calls that change an interface (not the usage cycle's `show`). */
const wgChanges = (skip: number) => w.tools.since(skip).filter((c) => c.tool === 'wg' && !c.args.startsWith('show'));

t.before(async () => {
  w.router = new Netns('rbatch');
  w.router.exec('ip', ['address', 'add', '192.0.2.1/32', 'dev', 'lo']);
  w.tools = toolLog(['wg']);
  w.d = await startNsDaemon(w.router, { env: { PATH: `${w.tools.dir}:${process.env.PATH}`, WGCP_USAGE_INTERVAL_S: '1', WGCP_KERNEL_AUDIT_S: '2' } });
  w.keys = Array.from({ length: PEERS }, () => generateKeyPair().publicKey);
  const conf = wgQuickServer({
    privateKey: generateKeyPair().privateKey, address: '10.84.0.1/24', listenPort: 51884,
    peers: w.keys.map((publicKey, i) => ({ comment: `host-${i}`, publicKey, allowedIps: `10.84.0.${i + 2}/32` })),
  });
  const res = await w.d.api('POST', '/api/import', { source: 'wg-quick', file: conf, fileName: 'wg0.conf', endpoint: '192.0.2.1:51884' });
  assert.is(res.status, 201, res.text);
  w.ifname = res.json.server.interface;
});

t.after(async () => {
  await w.d?.stop();
  w.router?.destroy();
  w.tools?.remove();
});

t('imported peers without a preshared key show as (none) and are no drift: compares run, no repair, no audit row, no wg call', async () => {
  assert.ok(w.d.exec('wg', ['show', w.ifname, 'dump']).split('\n').slice(1).filter(Boolean).every((l) => l.split('\t')[1] === '(none)'));
  const mark = w.tools.calls().length;
  const before = await checks();
  // Every slice of the usage cycle's compare (four), and full audits with their fresh dumps.
  await eventually('a dozen peer compares', async () => ((await checks()) >= before + 12 ? true : undefined), 30_000);
  assert.is(await repairs(), 0);
  assert.is(await reconcilerAudits(), 0);
  assert.not.match(w.d.output(), /kernel drift repaired/);
  assert.equal(wgChanges(mark), [], 'the daemon changed nothing on the interface');
});

t(`${DRIFTED} peers drifted by hand are put right by one repair made of one wg call`, async () => {
  const mark = w.tools.calls().length;
  // One `wg set` by hand: 40 peers removed and 10 given another address.
  const args = ['set', w.ifname];
  w.keys.slice(0, 40).forEach((k) => args.push('peer', k, 'remove'));
  w.keys.slice(40, DRIFTED).forEach((k, i) => args.push('peer', k, 'allowed-ips', `10.84.0.${200 + i}/32`));
  w.d.exec('wg', args);
  assert.is(allowedByKey().size, PEERS - 40);
  await eventually('every peer back with its own address', () => {
    const held = allowedByKey();
    return w.keys.every((k, i) => held.get(k) === `10.84.0.${i + 2}/32`) ? true : undefined;
  }, 20_000);
  await eventually('the repair is audited', async () => ((await reconcilerAudits()) > 0 ? true : undefined));
  assert.is(await reconcilerAudits(), 1, 'one repair');
  assert.is(await repairs(), DRIFTED);
  const changes = wgChanges(mark);
  assert.equal(changes.map((c) => c.args.split(' ').slice(0, 2).join(' ')), [`addconf ${w.ifname}`], 'one wg call for 50 peers, its keys in a file');
  assert.not.ok(changes[0].args.includes('='), 'no key on the command line');
});

t.run();
