// A backup taken while wgcpd drives a router and writes, restored twice: into a new router
// (a fresh data folder, then a start) and into the running daemon (wgcp restore, which has it
// start again through SIGHUP). Each time the API answers what the source answered when the
// backup was taken, and the kernel (wg showconf, the inet wgcp table) holds the same.
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

t('restored into the running daemon: wgcp restore has it start again (SIGHUP), and it answers and holds that state', async () => {
  const pid = w.a.pid;
  const r = await wgcp(w.a.dataDir, 'restore', w.backup);
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, new RegExp(`wgcpd \\(pid ${pid}\\) is running: it applies the restore as it starts again \\(SIGHUP\\)`));
  assert.match(r.stdout, /restored; wgcpd started again from it: the kernel holds the restored state\n/);
  assert.ok(fs.readdirSync(w.a.dataDir).some((f) => f.startsWith('wgcp.db.before-restore-')));
  const now = await observe(w.a, w.serverId);
  assert.is(now.api, w.seen[w.at].api);
  assert.is(now.kernel, w.seen[w.at].kernel);
  assert.is(now.conf, w.seen[w.at].conf);
  assert.match(w.a.output(), /"msg":"restored a backup; the database before it is kept"/);
});

t('a refused file leaves the running daemon alone: exit 2, no reload', async () => {
  const before = await observe(w.a, w.serverId);
  const junk = path.join(tempDir('wgcp-bk-'), 'junk.db');
  fs.writeFileSync(junk, fs.readFileSync(w.backup).subarray(0, 20_000));
  const reloads = (w.a.output().match(/reloading: wgcpd starts again/g) ?? []).length;
  const r = await wgcp(w.a.dataDir, 'restore', junk);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /truncated/);
  assert.is((w.a.output().match(/reloading: wgcpd starts again/g) ?? []).length, reloads);
  assert.equal(await observe(w.a, w.serverId), before);
});

t.run();
