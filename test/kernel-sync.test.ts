// The one sync of a server to the store, on the real kernel: wgcpd in a router namespace
// with the real nft and wireguard-go, every `wg` and `ip` it runs recorded by a wrapper on
// its PATH. A restore into the running daemon syncs each server both sides hold: the peers
// that differ go in one batch and the interface stays up.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { tempDir } from './helpers/daemon';
import { toolLog, type ToolLog } from './helpers/tool-log';

const t = suiteNeeding('kernel sync: a server synced to the store, partial and full', ['ip', 'nft', 'wg', 'wireguard-go', 'nsenter', 'unshare'], { root: true });

const CLI = path.join(__dirname, '../src/cli/main.js');
const w = {} as { router: Netns; d: NsDaemon; tools: ToolLog; serverId: number; ifname: string; peers: Record<string, { id: number; publicKey: string; ip: string }> };

const wgcp = (...args: string[]): string => execFileSync(process.execPath, [CLI, '--data-dir', w.d.dataDir, ...args], { encoding: 'utf8' });
const kernelKeys = (): string[] => w.d.exec('wg', ['show', w.ifname, 'peers']).trim().split('\n').filter(Boolean).sort();
const ifindex = (): string => w.d.exec('cat', [`/sys/class/net/${w.ifname}/ifindex`]).trim();
const internetSet = (): string => w.d.exec('nft', ['list', 'set', 'inet', 'wgcp', 'internet']);

async function addPeer(name: string, body: Record<string, unknown> = {}): Promise<void> {
  const r = await w.d.api('POST', `/api/servers/${w.serverId}/peers`, { name, ...body });
  assert.is(r.status, 201, r.text);
  w.peers[name] = { id: r.json.id, publicKey: r.json.publicKey, ip: r.json.ip };
}

t.before(async () => {
  w.router = new Netns('ksync');
  w.router.exec('ip', ['address', 'add', '192.0.2.1/32', 'dev', 'lo']);
  w.tools = toolLog(['wg', 'ip']);
  // No pass of the reconciler meanwhile: what is put right is put right by the sync.
  w.d = await startNsDaemon(w.router, { env: { PATH: `${w.tools.dir}:${process.env.PATH}`, WGCP_KERNEL_AUDIT_S: '3600', WGCP_USAGE_INTERVAL_S: '3600' } });
  const s = await w.d.api('POST', '/api/servers', { name: 'office', endpoint: '192.0.2.1:51890', mode: 'forward', address: '10.90.0.1/24', listenPort: 51890 });
  assert.is(s.status, 201, s.text);
  w.serverId = s.json.id;
  w.ifname = s.json.interface;
  w.peers = {};
  for (const name of ['a', 'b', 'c']) await addPeer(name, { allowInternet: name !== 'b' });
});

t.after(async () => {
  await w.d?.stop();
  w.router?.destroy();
  w.tools?.remove();
});

t('a restore syncs the server both sides hold: only the peers that differ, one wg set, the interface kept up', async () => {
  const file = path.join(tempDir('wgcp-ksync-'), 'office.db');
  wgcp('backup', '--out', file);
  // After the backup: a peer added, one's internet flag flipped, one removed.
  await addPeer('d');
  assert.is((await w.d.api('PUT', `/api/peers/${w.peers.b.id}`, { allowInternet: true })).status, 200);
  assert.is((await w.d.api('DELETE', `/api/peers/${w.peers.c.id}`)).status, 204);
  const index = ifindex();
  const mark = w.tools.calls().length;
  wgcp('restore', file);
  const wanted = ['a', 'b', 'c'].map((n) => w.peers[n].publicKey).sort();
  assert.equal(kernelKeys(), wanted, 'the interface holds the backup\'s peers');
  assert.is(ifindex(), index, 'the interface was kept (not taken down and made again)');
  const internet = internetSet();
  assert.ok(internet.includes(w.peers.c.ip) && internet.includes(w.peers.a.ip), internet);
  assert.not.ok(internet.includes(w.peers.b.ip), 'b is back without internet');
  const calls = w.tools.since(mark).filter((c) => !c.args.startsWith('show') && !c.args.startsWith('address show') && !c.args.startsWith('-j'));
  const wgSets = calls.filter((c) => c.tool === 'wg' && c.args.startsWith('set '));
  assert.is(wgSets.length, 1, `the peers that differ in one wg set: ${JSON.stringify(calls)}`);
  assert.ok(wgSets[0].args.includes(w.peers.c.publicKey) && wgSets[0].args.includes(w.peers.d.publicKey), wgSets[0].args);
  assert.not.ok(wgSets[0].args.includes(w.peers.b.publicKey), 'b changed only in the table: no wg call for it');
  assert.not.ok(calls.some((c) => /^(syncconf|link add|link del)/.test(c.args)), `no rebuild: ${JSON.stringify(calls)}`);
});

t('rows written first, then synced (as a standby router does): partial syncs only the peers named, a full sync reads the interface and puts it right', () => {
  const ns = new Netns('ksyncchild');
  try {
    const seen = JSON.parse(ns.exec(process.execPath, [path.join(__dirname, 'helpers/sync-child.js')]));
    assert.is(seen.start, 3);
    assert.ok(seen.partialKeys, 'the new peer on, the deleted one off');
    assert.equal(seen.partialInternet, [true, true, false, false], 'b gained the internet; c, deleted, holds nothing');
    assert.ok(seen.unnamedKept, 'a row not named stays as the kernel holds it');
    assert.ok(seen.fullKeys, 'the peer removed by hand is back');
    assert.not.ok(seen.fullInternet, 'and a\'s row, changed before, is synced by the full sync');
  } finally {
    ns.destroy();
  }
});

t('the sync is a change like any other: the next change finds the kernel and the store agreeing', async () => {
  await addPeer('e');
  const listed = await w.d.api('GET', `/api/servers/${w.serverId}/peers`);
  const stored = (listed.json.peers ?? listed.json).map((p: { publicKey: string }) => p.publicKey).sort();
  assert.equal(kernelKeys(), stored);
});

t('the routes of the networks behind a peer go in one `ip -batch`, whatever their number, and leave in one', async () => {
  const nets = ['10.95.1.0/24', '10.95.2.0/24', '10.95.3.0/24', 'fd95::/64'];
  const routes = (): string => w.d.exec('ip', ['route']) + w.d.exec('ip', ['-6', 'route']);
  let mark = w.tools.calls().length;
  assert.is((await w.d.api('PUT', `/api/peers/${w.peers.a.id}`, { networks: nets })).status, 200);
  const routeCalls = () => w.tools.since(mark).filter((c) => c.tool === 'ip' && /route|batch/.test(c.args));
  assert.equal(routeCalls().map((c) => c.args), ['-batch -'], 'one ip process for four routes');
  for (const n of nets) assert.ok(routes().includes(`${n} dev ${w.ifname}`), `${n} routed: ${routes()}`);
  mark = w.tools.calls().length;
  assert.is((await w.d.api('PUT', `/api/peers/${w.peers.a.id}`, { networks: [] })).status, 200);
  assert.equal(routeCalls().map((c) => c.args), ['-force -batch -'], 'one ip process to take them out');
  for (const n of nets) assert.not.ok(routes().includes(`${n} dev ${w.ifname}`), `${n} gone`);
});

t.run();
