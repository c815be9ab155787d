// The routes of the networks behind peers go to the kernel in one `ip` process a change,
// whatever their number: wgcpd in a router namespace with the real ip, nft and wireguard-go,
// and every `ip` it runs recorded by a wrapper on its PATH (a process each cost the start-up
// of 5,000 routes 5,000 forks of the daemon, each holding its event loop: issue 35).
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { toolLog, type ToolLog } from './helpers/tool-log';

const t = suiteNeeding('routes of the networks behind peers, one ip process a change', ['ip', 'nft', 'wg', 'wireguard-go', 'nsenter', 'unshare'], { root: true });

const NETWORKS = 24;
const w = {} as { router: Netns; d: NsDaemon; tools: ToolLog; ifname: string; serverId: number; peerId: number };

/** `10.<base>.<i>.0/24` for i below NETWORKS. */
const networks = (base: number): string[] => Array.from({ length: NETWORKS }, (_, i) => `10.${base}.${i}.0/24`);
/** The prefixes routed through the tunnel, as the kernel holds them. */
const routed = (): string[] => w.d.exec('ip', ['route', 'show', 'dev', w.ifname]).split('\n').map((l) => l.split(' ')[0]).filter((p) => /^10\.(91|92)\./.test(p)).sort();
/** `ip` calls that change routes, after a mark (not the test's own `ip netns exec` that starts the daemon). */
const routeCalls = (skip: number): string[] => w.tools.since(skip).filter((c) => c.tool === 'ip' && !c.args.startsWith('netns') && /route|-batch/.test(c.args)).map((c) => c.args);

const start = async (dataDir?: string) => {
  w.d = await startNsDaemon(w.router, { dataDir, env: { PATH: `${w.tools.dir}:${process.env.PATH}` } });
};

t.before(async () => {
  w.router = new Netns('rroutes');
  w.router.exec('ip', ['address', 'add', '192.0.2.1/32', 'dev', 'lo']);
  w.tools = toolLog(['ip']);
  await start();
  const server = await w.d.api('POST', '/api/servers', { name: 'hq', endpoint: '192.0.2.1:51871', mode: 'forward', address: '10.71.0.1/24' });
  assert.is(server.status, 201, server.text);
  w.serverId = server.json.id;
  w.ifname = server.json.interface;
});

t.after(async () => {
  await w.d?.stop();
  w.router?.destroy();
  w.tools?.remove();
});

t(`a peer created with ${NETWORKS} networks: all routed through the tunnel by one ip process`, async () => {
  const mark = w.tools.calls().length;
  const res = await w.d.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'branch', networks: networks(91) });
  assert.is(res.status, 201, res.text);
  w.peerId = res.json.id;
  assert.equal(routed(), networks(91).sort());
  assert.equal(routeCalls(mark), ['-batch -']);
});

t(`its ${NETWORKS} networks moved to others: the old routes gone and the new ones made, by one ip process each`, async () => {
  const mark = w.tools.calls().length;
  const res = await w.d.api('PUT', `/api/peers/${w.peerId}`, { networks: networks(92) });
  assert.is(res.status, 200, res.text);
  assert.equal(routed(), networks(92).sort());
  assert.equal(routeCalls(mark), ['-force -batch -', '-batch -']);
});

t('a start-up routes every network again by one ip process', async () => {
  const { dataDir } = w.d;
  await w.d.stop();
  // The interface and its routes are gone with the daemon's wireguard-go: start-up makes them again.
  const mark = w.tools.calls().length;
  await start(dataDir);
  assert.equal(routed(), networks(92).sort());
  assert.equal(routeCalls(mark), ['-batch -']);
});

t.run();
