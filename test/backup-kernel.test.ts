// A backup taken while wgcpd drives a router and writes, restored twice: into a new router
// (a fresh data folder, then a start) and into the running daemon (wgcp restore, which hands
// it to the daemon's change runner through its socket: no restart). Each time the API answers
// what the source answered when the backup was taken, and the kernel (wg showconf, the inet
// wgcp table) holds the same. A backup with another device salt takes a SIGHUP restart; a
// restore the kernel refuses leaves the daemon, its database and its kernel as they were.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { kernelState } from './helpers/kernel-state';
import { tempDir } from './helpers/daemon';

const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const t = suiteNeeding('backup: restore to a router under write load, kernel included', ['ip', 'nft', 'wg', 'wireguard-go', 'nsenter', 'unshare'], { root: true });

const wgcp = (dataDir: string, ...args: string[]) =>
  run(process.execPath, [CLI, '--data-dir', dataDir, ...args]).then((r) => ({ code: 0, ...r }), (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }));

/** `wg showconf` of every wgcp link, peers in key order (the kernel keeps them in the order they came). */
function showconf(d: NsDaemon, links: string[]): string {
  return links.map((l) => {
    const [iface, ...peers] = d.exec('wg', ['showconf', l]).split(/\n(?=\[Peer\])/);
    return [iface.trim(), ...peers.map((p) => p.trim()).sort()].join('\n');
  }).join('\n\n');
}

interface Seen { api: string; kernel: string; conf: string }

/** Every server the daemon answers, and the kernel: for checks that nothing moved. */
async function observeAll(): Promise<{ api: string; kernel: string }> {
  const r = await w.a.api('GET', '/api/servers');
  return { api: r.text, kernel: kernelState(w.a) };
}

/** wireguard-go's socket folder is shared: a stopped link's name is free once its socket is gone. */
async function waitForLinkGone(iface: string): Promise<void> {
  for (let i = 0; w.a.exec('ls', ['/run/wireguard']).includes(`${iface}.sock`) || w.a.exec('ip', ['-o', 'link']).includes(` ${iface}:`); i++) {
    if (i > 500) throw new Error(`${iface} did not go`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function observe(d: NsDaemon, serverId: number): Promise<Seen> {
  return d.api('GET', `/api/servers/${serverId}`).then((r) => {
    const kernel = kernelState(d);
    return { api: r.text, kernel, conf: showconf(d, JSON.parse(kernel).links) };
  });
}

const w = {} as { router: Netns; router2?: Netns; a: NsDaemon; b?: NsDaemon; serverId: number; seen: Seen[]; backup: string; at: number };

t.before(async () => {
  w.router = new Netns('bkr');
  w.a = await startNsDaemon(w.router);
  const s = await w.a.api('POST', '/api/servers', { name: 'office', endpoint: '192.0.2.1:51881', mode: 'forward', address: '10.81.0.1/24' });
  assert.is(s.status, 201, s.text);
  w.serverId = s.json.id;
  const first = (await w.a.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'first', allowInternet: true })).json;
  await w.a.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'second', allowAccess: [first.id] });
});

t.after(async () => {
  await w.a?.stop();
  await w.b?.stop();
  w.router?.destroy();
  w.router2?.destroy();
  for (const d of [w.a?.dataDir, w.b?.dataDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

t('a backup taken while peers are made, renamed and deleted is one state the daemon held, kernel included', async () => {
  w.seen = [];
  let stop = false;
  let backupDone = -1;
  const load = (async () => {
    const record = async () => { w.seen.push(await observe(w.a, w.serverId)); };
    await record();
    let prev: number | null = null;
    for (let i = 0; !stop || w.seen.length < backupDone + 2; i++) {
      const p = await w.a.api('POST', `/api/servers/${w.serverId}/peers`, { name: `load-${i}`, allowInternet: i % 2 === 0 });
      assert.is(p.status, 201, p.text);
      await record();
      if (prev !== null) { await w.a.api('PUT', `/api/peers/${prev}`, { name: `load-${i - 1}-renamed`, enabled: i % 4 !== 0 }); await record(); }
      if (i % 3 === 2) { await w.a.api('DELETE', `/api/peers/${p.json.id}`); await record(); } else prev = p.json.id;
    }
  })();
  while (w.seen.length < 4) await new Promise((r) => setTimeout(r, 20));
  w.backup = path.join(tempDir('wgcp-bk-'), 'router.db');
  const r = await wgcp(w.a.dataDir, 'backup', '--out', w.backup);
  assert.is(r.code, 0, r.stderr);
  backupDone = w.seen.length;
  stop = true;
  await load;
  assert.ok(w.seen.length > backupDone, 'the load went on after the backup');
});

t('restored into a new router, the daemon answers and the kernel holds that state', async () => {
  w.router2 = new Netns('bkr2');
  const dataDir = tempDir('wgcp-ns-');
  const r = await wgcp(dataDir, 'restore', w.backup);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /wgcpd is not running: its next start applies the restored state to the kernel \(when its kernel backend is on\)/);
  w.b = await startNsDaemon(w.router2, { dataDir });
  const now = await observe(w.b, w.serverId);
  w.at = w.seen.findIndex((s) => s.api === now.api);
  assert.ok(w.at >= 1 && w.at < w.seen.length - 1, `the restored answer is state ${w.at} of ${w.seen.length}`);
  assert.is(now.kernel, w.seen[w.at].kernel);
  assert.is(now.conf, w.seen[w.at].conf);
  assert.match(now.conf, /PrivateKey = /);
});

t('restored into the running daemon as one change: no restart, the answers, the kernel and an audit row', async () => {
  const pid = w.a.pid;
  const reloads = (w.a.output().match(/reloading: wgcpd starts again/g) ?? []).length;
  const r = await wgcp(w.a.dataDir, 'restore', w.backup);
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, new RegExp(`restored by the running wgcpd \\(pid ${pid}\\) as one change, without a restart: 1 servers, \\d+ peers\n`));
  assert.match(r.stdout, /the database before the restore is kept as .*wgcp\.db\.before-restore-/);
  assert.match(r.stdout, /\nthe kernel holds the restored state\n/);
  assert.is(w.a.pid, pid);
  assert.is((w.a.output().match(/reloading: wgcpd starts again/g) ?? []).length, reloads, 'no SIGHUP reload');
  const now = await observe(w.a, w.serverId);
  assert.is(now.api, w.seen[w.at].api);
  assert.is(now.kernel, w.seen[w.at].kernel);
  assert.is(now.conf, w.seen[w.at].conf);
  const audit = await w.a.api('GET', '/api/audit?action=backup.restore');
  assert.is(audit.status, 200, audit.text);
  assert.is(audit.json.entries.length, 1, audit.text);
  assert.is(audit.json.entries[0].actor.kind, 'cli');
  assert.ok(!fs.existsSync(path.join(w.a.dataDir, 'wgcp.db.restore-pending')));
});

t('a backup with another router\'s device salt is applied as the daemon starts again (SIGHUP), salt included', async () => {
  const saltFile = path.join(w.a.dataDir, 'server-salt');
  const ours = fs.readFileSync(saltFile, 'utf8');
  fs.writeFileSync(saltFile, 'another-routers-salt-0123456789\n', { mode: 0o600 });
  const pid = w.a.pid;
  const r = await wgcp(w.a.dataDir, 'restore', w.backup);
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, new RegExp(`wgcpd \\(pid ${pid}\\) is running: it applies the restore as it starts again \\(SIGHUP\\), to take the backup's device salt`));
  assert.match(r.stdout, /restored; wgcpd started again from it: the kernel holds the restored state\n/);
  assert.is(fs.readFileSync(saltFile, 'utf8'), ours);
  const now = await observe(w.a, w.serverId);
  assert.is(now.api, w.seen[w.at].api);
  assert.is(now.kernel, w.seen[w.at].kernel);
  assert.match(w.a.output(), /"msg":"restored a backup; the database before it is kept"/);
});

t('a restore whose server\'s interface is now a link wgcp did not make is refused whole, and that link is left alone', async () => {
  const before = await w.a.api('GET', '/api/servers');
  const gone = await w.a.api('DELETE', `/api/servers/${w.serverId}`);
  assert.is(gone.status, 204, gone.text);
  const other = await w.a.api('POST', '/api/servers', { name: 'other', endpoint: '192.0.2.1:51882', mode: 'standalone', address: '10.82.0.1/24', listenPort: 51882 });
  assert.is(other.status, 201, other.text);
  await w.a.api('POST', `/api/servers/${other.json.id}/peers`, { name: 'stays' });
  const iface = JSON.parse(before.text).find((s: { id: number }) => s.id === w.serverId).interface;
  await waitForLinkGone(iface);
  w.a.exec('ip', ['link', 'add', iface, 'type', 'veth', 'peer', 'name', `${iface}p`]);
  const held = await observeAll();
  const r = await wgcp(w.a.dataDir, 'restore', w.backup);
  assert.is.not(r.code, 0, r.stdout);
  assert.match(r.stderr, /wgcpd did not apply the restore: interface wgcp\d+ already exists on this router and was not made by wgcp; choose another name; the database is as it was/);
  assert.equal(await observeAll(), held);
  assert.match(w.a.exec('ip', ['-d', 'link', 'show', iface]), /veth/);
  w.a.exec('ip', ['link', 'del', iface]);
});

t('a refused file leaves the running daemon alone: exit 2, no reload', async () => {
  const before = await observeAll();
  const junk = path.join(tempDir('wgcp-bk-'), 'junk.db');
  fs.writeFileSync(junk, fs.readFileSync(w.backup).subarray(0, 20_000));
  const reloads = (w.a.output().match(/reloading: wgcpd starts again/g) ?? []).length;
  const r = await wgcp(w.a.dataDir, 'restore', junk);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /truncated/);
  assert.is((w.a.output().match(/reloading: wgcpd starts again/g) ?? []).length, reloads);
  assert.equal(await observeAll(), before);
});

t.run();
