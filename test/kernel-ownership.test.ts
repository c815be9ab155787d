// The router comes first: on a router with its own bridge, veth and tun links, wgcpd takes
// none of them (create, rename, start-up), and one server that cannot come up (its UDP port
// held by another program) leaves the daemon and the other servers running.
import fs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { canRunAsRoot } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';

const t = suite('kernel: wgcpd touches only the links it made and survives a broken server');

const w = {} as { router: Netns; daemon: NsDaemon; dataDir: string; holder?: ChildProcess };

/** Kind and address of a link as the router sees it, or null when it is gone. */
function link(name: string): { kind: string; addrs: string[] } | null {
  try {
    const info = JSON.parse(w.router.exec('ip', ['-d', '-j', 'address', 'show', 'dev', name]))[0];
    return { kind: info.linkinfo?.info_kind ?? (info.flags?.includes('POINTOPOINT') ? 'tun' : 'none'), addrs: (info.addr_info ?? []).map((a: { local: string; prefixlen: number }) => `${a.local}/${a.prefixlen}`) };
  } catch {
    return null;
  }
}

/** Holds a UDP port in the router namespace until killed (another program's socket). */
async function holdUdpPort(port: number): Promise<ChildProcess> {
  const child = w.router.spawn('python3', ['-c', `import socket,time\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\ns.bind(("0.0.0.0",${port}))\nprint("bound",flush=True)\ntime.sleep(600)`]);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`port holder exited with ${code}`)));
  });
  return child;
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

if (canRunAsRoot('kernel ownership', ['ip', 'nft', 'wg', 'wireguard-go', 'python3'])) {
  t.before(async () => {
    w.router = new Netns('own');
    w.router.exec('ip', ['link', 'add', 'br-lan', 'type', 'bridge']);
    w.router.exec('ip', ['address', 'add', '192.168.77.1/24', 'dev', 'br-lan']);
    w.router.exec('ip', ['link', 'add', 'wg0', 'type', 'veth', 'peer', 'name', 'wg0-peer']);
    // The agent's own tunnel and a link named like a server default: wgcp's names, not wgcp's links.
    w.router.exec('ip', ['tuntap', 'add', 'dev', 'wgcp0', 'mode', 'tun']);
    w.router.exec('ip', ['tuntap', 'add', 'dev', 'wgcp1', 'mode', 'tun']);
    w.daemon = await startNsDaemon(w.router);
    w.dataDir = w.daemon.dataDir;
  });

  t.after(async () => {
    w.holder?.kill('SIGKILL');
    await w.daemon?.stop();
    w.router?.destroy();
    if (w.dataDir) fs.rmSync(w.dataDir, { recursive: true, force: true });
  });

  t('a server may not take the LAN bridge, a veth or the agent\'s tunnel: 409, and the link is untouched', async () => {
    for (const name of ['br-lan', 'wg0', 'wgcp0']) {
      const before = link(name);
      const res = await w.daemon.api('POST', '/api/servers', { name: 'x', endpoint: '192.0.2.1:51900', mode: 'forward', interface: name });
      assert.is(res.status, 409, res.text);
      assert.match(res.json.error, new RegExp(`interface ${name} .*not made by wgcp`));
      assert.is(res.json.field, 'interface');
      assert.equal(link(name), before, `${name} is as it was`);
    }
    assert.equal(link('br-lan')?.addrs, ['192.168.77.1/24']);
    assert.equal((await w.daemon.api('GET', '/api/servers')).json, [], 'nothing was stored');
  });

  t('a default name held by a router link is skipped, not taken', async () => {
    const res = await w.daemon.api('POST', '/api/servers', { name: 'home', endpoint: '192.0.2.1:51820', mode: 'forward', address: '10.81.0.1/24' });
    assert.is(res.status, 201, res.text);
    assert.is(res.json.id, 1);
    assert.is(res.json.interface, 'wgcp1-1');
    assert.is(res.json.kernelState, 'up');
    assert.is(link('wgcp1')?.kind, 'tun', 'the foreign wgcp1 is still there');
    assert.ok(link('wgcp1-1'), 'the server has its own link');
  });

  t('a rename onto a router link is 409 and the server keeps its interface', async () => {
    const res = await w.daemon.api('PUT', '/api/servers/1', { interface: 'br-lan' });
    assert.is(res.status, 409, res.text);
    assert.is((await w.daemon.api('GET', '/api/servers/1')).json.interface, 'wgcp1-1');
    assert.ok(link('wgcp1-1'));
    assert.equal(link('br-lan')?.addrs, ['192.168.77.1/24']);
  });

  t('a restart removes only wgcp\'s own left-overs: router links named wgcp<N> stay', async () => {
    const second = await w.daemon.api('POST', '/api/servers', { name: 'lab', endpoint: '192.0.2.1:51821', mode: 'forward', address: '10.82.0.1/24', interface: 'wgcplab' });
    assert.is(second.status, 201, second.text);
    await w.daemon.stop();
    w.daemon = await startNsDaemon(w.router, { dataDir: w.dataDir });
    assert.equal((await w.daemon.api('GET', '/healthz')).json.status, 'ok');
    assert.is(link('wgcp0')?.kind, 'tun');
    assert.is(link('wgcp1')?.kind, 'tun');
    assert.ok(link('br-lan'));
    assert.ok(link('wg0'));
    assert.ok(link('wgcplab'));
  });

  t('a server whose UDP port another program holds is marked failed at start; the daemon and the other server run', async () => {
    await w.daemon.stop();
    w.holder = await holdUdpPort(51821);
    w.daemon = await startNsDaemon(w.router, { dataDir: w.dataDir });
    const health = (await w.daemon.api('GET', '/healthz')).json;
    assert.is(health.status, 'degraded');
    assert.is(health.failures.length, 1);
    assert.is(health.failures[0].serverID, 2);
    assert.match(health.failures[0].reason, /in use|bind/i);
    assert.equal(health.reasons, [`server 2 (${health.failures[0].interface}) is down: ${health.failures[0].reason}`]);
    const metrics = (await w.daemon.api('GET', '/metrics')).text;
    assert.match(metrics, /^wgcp_kernel_backend_on 1$/m);
    assert.match(metrics, /^wgcp_server_failed\{server="2"\} 1$/m);
    assert.match(metrics, /^wgcp_server_failed\{server="1"\} 0$/m);
    const lab = (await w.daemon.api('GET', '/api/servers/2')).json;
    assert.is(lab.kernelState, 'failed');
    assert.match(lab.kernelFailure.reason, /in use|bind/i);
    assert.match(w.daemon.output(), /server could not be brought up/);
    const peer = await w.daemon.api('POST', '/api/servers/1/peers', { name: 'phone' });
    assert.is(peer.status, 201, 'the healthy server still takes changes');
    const waiting = await w.daemon.api('POST', '/api/servers/2/peers', { name: 'later' });
    assert.is(waiting.status, 201, 'a failed server stores its changes for when it comes up');
  });

  t('an update of a failed server retries it at once: with the port free it comes up with its peers', async () => {
    const holder = w.holder!;
    await new Promise((resolve) => { holder.once('exit', resolve); holder.kill('SIGKILL'); });
    const res = await w.daemon.api('PUT', '/api/servers/2', { name: 'lab2' });
    assert.is(res.status, 200, res.text);
    assert.is(res.json.kernelState, 'up', JSON.stringify(res.json.kernelFailure));
    assert.is((await w.daemon.api('GET', '/healthz')).json.status, 'ok');
    const peers = w.daemon.exec('wg', ['show', 'wgcplab', 'peers']).trim().split('\n').filter(Boolean);
    assert.is(peers.length, 1, 'the peer stored while it was down is on the interface');
    const table = w.daemon.exec('nft', ['list', 'set', 'inet', 'wgcp', 'tunnels']);
    assert.match(table, /"wgcplab"/);
  });

  t('a failed server is retried on its own with back-off', async () => {
    await w.daemon.stop();
    w.holder = await holdUdpPort(51821);
    w.daemon = await startNsDaemon(w.router, { dataDir: w.dataDir });
    assert.is((await w.daemon.api('GET', '/healthz')).json.status, 'degraded');
    const table = w.daemon.exec('nft', ['list', 'set', 'inet', 'wgcp', 'tunnels']);
    assert.not.match(table, /"wgcplab"/, 'a failed server holds nothing in the table');
    w.holder.kill('SIGKILL');
    await waitFor('the retry to bring the server up', async () => (await w.daemon.api('GET', '/healthz')).json.status === 'ok');
    assert.is((await w.daemon.api('GET', '/api/servers/2')).json.kernelState, 'up');
  });
}

t.run();
