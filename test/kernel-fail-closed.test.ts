// Fail-closed: no tunnel of wgcp's carries a packet before `inet wgcp` judges it. wgcpd in a
// router namespace with the real nft and wireguard-go; a wrapper on its PATH reads the
// table's `tunnels` set at the moment each `wg` or `ip` call would give an interface peers
// or set it up, before the call takes effect.
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { toolLog, type ToolCall, type ToolLog } from './helpers/tool-log';

const t = suiteNeeding('kernel: fail-closed, the table before any tunnel carries a packet', ['ip', 'nft', 'wg', 'wireguard-go', 'nsenter', 'unshare'], { root: true });

const w = {} as { router: Netns; d: NsDaemon; tools: ToolLog; env: Record<string, string> };

/** The calls that give `ifname` peers or set it up. */
const opening = (calls: ToolCall[], ifname: string): ToolCall[] =>
  calls.filter((c) => c.tunnels !== null && c.args.split(' ').includes(ifname) && !c.args.startsWith('link set dev wgifb'));

/** Each opening call saw the interface in the table's tunnels set (its drops in force). */
function assertJudgedFirst(calls: ToolCall[], ifname: string, what: string): void {
  const opened = opening(calls, ifname);
  assert.ok(opened.some((c) => /^(syncconf|addconf|setconf) /.test(c.args)), `${what}: the interface was given its peers (${JSON.stringify(calls)})`);
  assert.ok(opened.some((c) => /^link set dev \S+ .*\bup$/.test(c.args)), `${what}: the interface was set up`);
  for (const c of opened) assert.ok(c.tunnels!.includes(`"${ifname}"`) || new RegExp(`\\b${ifname}\\b`).test(c.tunnels!), `${what}: \`${c.tool} ${c.args}\` ran while inet wgcp did not judge ${ifname} (tunnels: ${c.tunnels || 'no table'})`);
}

t.before(async () => {
  w.router = new Netns('failclosed');
  w.router.exec('ip', ['address', 'add', '192.0.2.1/32', 'dev', 'lo']);
  w.tools = toolLog(['wg', 'ip'], { tableAtUp: true });
  w.env = { PATH: `${w.tools.dir}:${process.env.PATH}` };
  w.d = await startNsDaemon(w.router, { env: w.env });
});

t.after(async () => {
  await w.d?.stop();
  w.router?.destroy();
  w.tools?.remove();
});

t('a server created at run time: its filter is in the table before its interface is up or holds a peer', async () => {
  const mark = w.tools.calls().length;
  const s = await w.d.api('POST', '/api/servers', { name: 'lan', endpoint: '192.0.2.1:51870', mode: 'forward', address: '10.87.0.1/24' });
  assert.is(s.status, 201, s.text);
  assertJudgedFirst(w.tools.since(mark), s.json.interface, 'create');
  for (let i = 0; i < 3; i++) assert.is((await w.d.api('POST', `/api/servers/${s.json.id}/peers`, { name: `p${i}`, allowInternet: false })).status, 201);
});

t('start-up with no table (as after a reboot): the table with its drops is loaded before any interface is up or holds its peers', async () => {
  const ifname = (await w.d.api('GET', '/api/servers')).json[0].interface as string;
  assert.is(await w.d.stop(), 0);
  // A boot: wireguard-go's interfaces ended with the daemon, and no table is loaded yet.
  w.router.exec('nft', ['delete', 'table', 'inet', 'wgcp']);
  const mark = w.tools.calls().length;
  w.d = await startNsDaemon(w.router, { dataDir: w.d.dataDir, env: w.env });
  assertJudgedFirst(w.tools.since(mark), ifname, 'start-up');
  assert.match(w.router.exec('nft', ['list', 'chain', 'inet', 'wgcp', 'tunnel_forward']), /drop/);
});

t('start-up with a server whose interface cannot come up (its port held): the table judged it before the attempt, it leaves the table once failed, the other server is up', async () => {
  const held = await w.d.api('POST', '/api/servers', { name: 'held', endpoint: '192.0.2.1:51871', mode: 'forward', address: '10.88.0.1/24', listenPort: 51871 });
  assert.is(held.status, 201, held.text);
  const ifname = held.json.interface as string;
  const up = (await w.d.api('GET', '/api/servers')).json[0].interface as string;
  assert.is(await w.d.stop(), 0);
  w.router.exec('nft', ['delete', 'table', 'inet', 'wgcp']);
  const holder = w.router.spawn('python3', ['-c', 'import socket,time\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\ns.bind(("0.0.0.0",51871))\nprint("bound",flush=True)\ntime.sleep(600)']);
  try {
    await new Promise<void>((resolve, reject) => { holder.stdout!.once('data', () => resolve()); holder.once('exit', (code) => reject(new Error(`port holder exited with ${code}`))); });
    const mark = w.tools.calls().length;
    w.d = await startNsDaemon(w.router, { dataDir: w.d.dataDir, env: w.env });
    const tried = w.tools.since(mark).filter((c) => c.tunnels !== null && c.args.split(' ').includes(ifname));
    assert.ok(tried.length > 0, `the held server's interface was tried: ${JSON.stringify(w.tools.since(mark))}`);
    for (const c of tried) assert.ok(c.tunnels!.includes(`"${ifname}"`), `\`${c.tool} ${c.args}\` ran before inet wgcp judged ${ifname} (tunnels: ${c.tunnels || 'no table'})`);
    const health = (await w.d.api('GET', '/healthz')).json;
    assert.equal(health.failures.map((f: { interface: string }) => f.interface), [ifname]);
    const tunnels = w.router.exec('nft', ['list', 'set', 'inet', 'wgcp', 'tunnels']);
    assert.not.match(tunnels, new RegExp(`"${ifname}"`), 'a failed server holds nothing in the table');
    assert.match(tunnels, new RegExp(`"${up}"`), 'the other server is up and judged');
    assertJudgedFirst(w.tools.since(mark), up, 'start-up beside a failed server');
  } finally {
    holder.kill('SIGKILL');
  }
  assert.is((await w.d.api('DELETE', `/api/servers/${held.json.id}`)).status, 204);
});

t('a server renamed onto a new interface: the new name is in the table before the new interface is up', async () => {
  const s = (await w.d.api('GET', '/api/servers')).json[0];
  const mark = w.tools.calls().length;
  const res = await w.d.api('PUT', `/api/servers/${s.id}`, { interface: 'wgcpren' });
  assert.is(res.status, 200, res.text);
  assertJudgedFirst(w.tools.since(mark), 'wgcpren', 'rename');
});

t.run();
