// Nothing half-applied: with a failing `nft` or `wg` put first on the daemon's PATH, a change
// answers 500 with the tool's message and both the database and the kernel stay as they
// were, including steps that had already succeeded. Also: a dead wireguard-go comes back.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { tempDir } from './helpers/daemon';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { kernelState, wireguardGoPid } from './helpers/kernel-state';
import { reachSoon, serveTcp, WgClient } from './helpers/wg-client';

const t = suite('kernel: rollback on tool failure, wireguard-go supervision');

const w = {} as { router: Netns; daemon: NsDaemon; fakeDir: string; serverId: number; a: { id: number; ip: string; publicKey: string }; client: WgClient };

/**
 * The daemon keeps one `nft -i` for incremental batches: the fake passes each line to a real
 * `nft -i` unless the marker exists, when it answers with an error instead (the line that
 * ends each batch always goes through, so the daemon hears the end of the answer).
 */
function interactiveNft(dir: string, real: string): string {
  return `if [ "$1" = -i ]; then
  fifo='${dir}/nft-in.'$$; mkfifo "$fifo"; '${real}' -i < "$fifo" & exec 3> "$fifo"; rm -f "$fifo"
  while IFS= read -r line; do
    case "$line" in
      wgcp-batch-end-*) printf '%s\\n' "$line" >&3 ;;
      *) if [ -e '${dir}/fail/nft' ]; then echo "Error: injected failure of nft" >&2; else printf '%s\\n' "$line" >&3; fi ;;
    esac
  done
  exec 3>&-; wait; exit 0
fi
`;
}

/** Scripts named like the tools that fail while a marker file exists and run the real tool otherwise. */
function makeFakeTools(dir: string): string {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.mkdirSync(path.join(dir, 'fail'));
  for (const tool of ['nft', 'wg', 'wireguard-go']) {
    const real = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    fs.writeFileSync(path.join(bin, tool), `#!/bin/sh\n${tool === 'nft' ? interactiveNft(dir, real) : ''}if [ -e '${dir}/fail/${tool}' ]; then echo "Error: injected failure of ${tool}" >&2; exit 1; fi\nexec '${real}' "$@"\n`, { mode: 0o755 });
  }
  // An `ip` that answers like a kernel without the WireGuard module, so that the daemon runs
  // wireguard-go here even on machines that have the module.
  const ip = execFileSync('sh', ['-c', 'command -v ip'], { encoding: 'utf8' }).trim();
  fs.writeFileSync(path.join(bin, 'ip'), `#!/bin/sh\nfor a in "$@"; do [ "$a" = wireguard ] && { echo "Error: Unknown device type." >&2; exit 2; }; done\nexec '${ip}' "$@"\n`, { mode: 0o755 });
  return bin;
}
const failing = (tool: 'nft' | 'wg' | 'wireguard-go', on: boolean): void => {
  const marker = path.join(w.fakeDir, 'fail', tool);
  if (on) fs.writeFileSync(marker, ''); else fs.rmSync(marker, { force: true });
};
// The peers as configured: their traffic (the usage cycle reads counters at any time, and every
// second just after a change) is not what a rollback keeps.
const dbPeers = async () => ((await w.daemon.api('GET', `/api/servers/${w.serverId}/peers`)).json as Record<string, unknown>[])
  .map(({ currentDataUsageBytes: _traffic, ...configured }) => configured);

if (canRunAsRoot('kernel rollback')) {
  // uvu swallows an error thrown by a before hook: say it, so a failed setup is not silent.
  t.before(() => setUp().catch((err) => { console.error('kernel suite setup failed:', err); throw err; }));

  async function setUp(): Promise<void> {
    w.fakeDir = tempDir('wgcp-fake-tools-');
    const bin = makeFakeTools(w.fakeDir);
    w.router = new Netns('router');
    w.router.exec('ip', ['address', 'add', '192.0.2.1/32', 'dev', 'lo']);
    w.daemon = await startNsDaemon(w.router, { env: { PATH: `${bin}:${process.env.PATH}` } });
    const server = await w.daemon.api('POST', '/api/servers', { name: 'office', endpoint: '192.0.2.1:51820', mode: 'forward', address: '10.66.0.1/24' });
    assert.is(server.status, 201, server.text);
    w.serverId = server.json.id;
    const a = await w.daemon.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'a', allowInternet: true });
    const b = await w.daemon.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'b', allowAccess: [a.json.id] });
    assert.is(b.status, 201, b.text);
    w.a = a.json;
    w.client = new WgClient('a', w.router, 1, '192.0.2.1');
    await w.client.up((await w.daemon.api('GET', `/api/peers/${w.a.id}/config`)).text, ['10.66.0.0/24']);
    await serveTcp(w.router, 7000, 'router');
  }

  t.after(async () => {
    await w.daemon?.stop();
    w.client?.destroy();
    w.router?.destroy();
    if (w.fakeDir) fs.rmSync(w.fakeDir, { recursive: true, force: true });
    if (w.daemon) fs.rmSync(w.daemon.dataDir, { recursive: true, force: true });
  });

  t('a peer create that nft refuses answers 500 with nft\'s message; database and kernel unchanged', async () => {
    const kernel = kernelState(w.daemon);
    const peers = await dbPeers();
    failing('nft', true);
    const res = await w.daemon.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'c', allowInternet: true });
    failing('nft', false);
    assert.is(res.status, 500);
    assert.ok(/injected failure of nft/.test(res.json.error), res.text);
    assert.equal(await dbPeers(), peers);
    assert.is(kernelState(w.daemon), kernel);
  });

  t('a disable whose wg step fails undoes the nft step that had already succeeded', async () => {
    const kernel = kernelState(w.daemon);
    failing('wg', true);
    const res = await w.daemon.api('PUT', `/api/peers/${w.a.id}`, { enabled: false });
    failing('wg', false);
    assert.is(res.status, 500);
    assert.ok(/injected failure of wg/.test(res.json.error), res.text);
    assert.is((await w.daemon.api('GET', `/api/peers/${w.a.id}`)).json.enabled, true);
    assert.is(kernelState(w.daemon), kernel);
    assert.match(w.daemon.output(), /kernel apply failed; undone/);
  });

  t('a peer delete that nft refuses keeps the peer in the database and the kernel', async () => {
    const kernel = kernelState(w.daemon);
    failing('nft', true);
    const res = await w.daemon.api('DELETE', `/api/peers/${w.a.id}`);
    failing('nft', false);
    assert.is(res.status, 500);
    assert.is((await w.daemon.api('GET', `/api/peers/${w.a.id}`)).status, 200);
    assert.is(kernelState(w.daemon), kernel);
  });

  t('a device peer delete whose wg step fails keeps the peer and its port forwards in the kernel', async () => {
    const token = (await w.daemon.api('POST', `/api/servers/${w.serverId}/tokens`)).json.token;
    assert.is((await w.daemon.api('POST', '/api/v1/provision', { token, hwid: 'rollback-fw' })).status, 200);
    const device = (await w.daemon.api('GET', '/api/devices')).json.find((x: { hwid: string }) => x.hwid === 'rollback-fw');
    const fw = await w.daemon.api('POST', `/api/devices/${device.id}/forwards`, { protocol: 'tcp', listenPort: 8443, targetPort: 443 });
    assert.is(fw.status, 201, fw.text);
    const kernel = kernelState(w.daemon);
    assert.match(kernel, /8443/);
    failing('wg', true);
    const res = await w.daemon.api('DELETE', `/api/peers/${device.peerID}`);
    failing('wg', false);
    assert.is(res.status, 500);
    assert.is((await w.daemon.api('GET', `/api/devices/${device.id}/forwards`)).json.length, 1);
    assert.is(kernelState(w.daemon), kernel, 'the forward is back in the kernel with its peer');
    assert.is((await w.daemon.api('DELETE', `/api/devices/${device.id}`)).status, 204);
  });

  t('a server create whose filter step fails removes its new interface again', async () => {
    const kernel = kernelState(w.daemon);
    failing('nft', true);
    const res = await w.daemon.api('POST', '/api/servers', { name: 'lab', endpoint: '192.0.2.1:51821', mode: 'forward', address: '10.67.0.1/24' });
    failing('nft', false);
    assert.is(res.status, 500);
    assert.ok(/injected failure of nft/.test(res.json.error), res.text);
    assert.is((await w.daemon.api('GET', '/api/servers')).json.length, 1);
    assert.is(kernelState(w.daemon), kernel);
    assert.is(wireguardGoPid(w.daemon, 'wgcp2'), null);
  });

  t('a wireguard-go that cannot bring an interface up: 500 quoting its own words, nothing stored', async () => {
    const kernel = kernelState(w.daemon);
    failing('wireguard-go', true);
    const res = await w.daemon.api('POST', '/api/servers', { name: 'lab', endpoint: '192.0.2.1:51822', mode: 'forward', address: '10.68.0.1/24' });
    failing('wireguard-go', false);
    assert.is(res.status, 500);
    assert.match(res.json.error, /wireguard-go exited before it brought up wgcp\d+: Error: injected failure of wireguard-go/);
    assert.is((await w.daemon.api('GET', '/api/servers')).json.length, 1);
    assert.is(kernelState(w.daemon), kernel);
  });

  t('once the tools work again the same changes apply', async () => {
    const res = await w.daemon.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'c', allowInternet: true });
    assert.is(res.status, 201, res.text);
    assert.ok(w.daemon.exec('wg', ['show', 'wgcp1', 'peers']).includes(res.json.publicKey));
    assert.ok(w.daemon.exec('nft', ['list', 'set', 'inet', 'wgcp', 'internet']).includes(res.json.ip));
  });

  t('a wireguard-go that dies is restarted and given its peers back', async () => {
    assert.is(await reachSoon(w.client.ns, '10.66.0.1', 7000), `router ${w.a.ip}`);
    const before = kernelState(w.daemon);
    const pid = wireguardGoPid(w.daemon, 'wgcp1');
    assert.ok(pid);
    process.kill(pid!, 'SIGKILL');
    let next: number | null = null;
    for (let i = 0; i < 100 && (next === null || next === pid); i++) {
      await new Promise((r) => setTimeout(r, 100));
      next = wireguardGoPid(w.daemon, 'wgcp1');
    }
    assert.ok(next !== null && next !== pid, 'a new wireguard-go runs');
    for (let i = 0; i < 50 && kernelState(w.daemon) !== before; i++) await new Promise((r) => setTimeout(r, 100));
    assert.is(kernelState(w.daemon), before);
    assert.match(w.daemon.output(), /wireguard-go exited; restarting it/);
    await w.client.up((await w.daemon.api('GET', `/api/peers/${w.a.id}/config`)).text, ['10.66.0.0/24']);
    assert.is(await reachSoon(w.client.ns, '10.66.0.1', 7000), `router ${w.a.ip}`);
  });

  t('a server update applies a new interface name (same port), then a new listen port and MTU in place', async () => {
    let res = await w.daemon.api('PUT', `/api/servers/${w.serverId}`, { interface: 'wgcp-lab' });
    assert.is(res.status, 200, res.text);
    assert.is(w.daemon.exec('wg', ['show', 'wgcp-lab', 'listen-port']).trim(), '51820');
    res = await w.daemon.api('PUT', `/api/servers/${w.serverId}`, { listenPort: 51900, mtu: 1380 });
    assert.is(res.status, 200, res.text);
    assert.is(w.daemon.exec('wg', ['show', 'wgcp-lab', 'listen-port']).trim(), '51900');
    assert.match(w.daemon.exec('ip', ['link', 'show', 'dev', 'wgcp-lab']), /mtu 1380 /);
    assert.ok(w.daemon.exec('wg', ['show', 'wgcp-lab', 'peers']).includes(w.a.publicKey));
    assert.not.match(w.daemon.exec('ip', ['-o', 'link', 'show']), /wgcp1[:@]/);
    assert.match(w.daemon.exec('nft', ['list', 'set', 'inet', 'wgcp', 'tunnels']), /"wgcp-lab"/);
    assert.not.match(w.daemon.exec('nft', ['list', 'set', 'inet', 'wgcp', 'tunnels']), /"wgcp1"/);
  });

  t('a server delete removes its interface and every element it held', async () => {
    const res = await w.daemon.api('DELETE', `/api/servers/${w.serverId}`);
    assert.is(res.status, 204, res.text);
    assert.not.match(w.daemon.exec('ip', ['-o', 'link', 'show']), /wgcp-lab/);
    const sets = JSON.parse(kernelState(w.daemon)).sets as Record<string, string[]>;
    assert.ok(['tunnels', 'server_addrs', 'pairs', 'internet', 'port_forwards', 'server_addrs6', 'pairs6', 'internet6', 'port_forwards6'].every((n) => n in sets));
    // The WAN interfaces (and the router's networks, left out of kernelState) are the router's, not the server's: only they may stay.
    assert.equal(Object.entries(sets).filter(([n, v]) => n !== 'wan_ifaces' && v.length > 0), []);
    assert.is(wireguardGoPid(w.daemon, 'wgcp-lab'), null);
  });
}

t.run();
