// The standby's steady cost: the pair of test/helpers/ha-pair.ts (two router namespaces, real
// keepalived making `a` primary), a forward-mode server on the primary with N provisioned
// devices (each a peer) heartbeating every 60 s with jitter (bench/soak-sim.ts), every peer's
// counters moving each minute (bench/flash-fake-wg.ts on the primary's PATH, usage cycle every
// 60 s), and in the second phase admin changes all along (a peer created, then deleted, every
// WGCP_BENCH_CHANGE_MS). The standby starts once the fleet is provisioned and follows. Per phase, for each router: wgcpd's CPU seconds
// an hour (/proc/PID/stat), its wireguard-go's, bytes it wrote a day (/proc/PID/io
// write_bytes, plus a checkpoint at the phase's end: WAL pages it would copy later), its
// database and WAL growth, its WAL frames by table; the machine's load average beside them.
//   node dist/bench/ha-standby-cost.js     (root; keepalived, wireguard-go)
//   WGCP_BENCH_DEVICES=10000 WGCP_BENCH_PHASE_S=600 WGCP_BENCH_CHANGE_MS=200
//   WGCP_BENCH_MAIN=<dist>/src/main.js is not taken: both routers run this build.
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { HaPair, VIRTUAL_ADDRESS, type RouterName } from '../test/helpers/ha-pair';
import { sh } from '../test/helpers/netns';
import { freezeTraffic, writeFakeWg } from './flash-fake-wg';
import { machineLines } from './scale-namespace';
import { WalTally } from './wal-frames';

const DEVICES = Number(process.env.WGCP_BENCH_DEVICES ?? 10_000);
const PHASE_S = Number(process.env.WGCP_BENCH_PHASE_S ?? 600);
const WARM_S = Number(process.env.WGCP_BENCH_WARM_S ?? 180);
const CHANGE_MS = Number(process.env.WGCP_BENCH_CHANGE_MS ?? 200);
const SIM = path.join(__dirname, 'soak-sim.js');
const TICK_S = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const read = (f: string): string => { try { return fs.readFileSync(f, 'utf8'); } catch { return ''; } };
const writeBytes = (pid: number | 'self'): number => Number(/^write_bytes: (\d+)/m.exec(read(`/proc/${pid}/io`))?.[1] ?? 0);
/** CPU seconds a process used (user + system), from /proc/PID/stat. */
const cpuS = (pid: number): number => {
  const f = read(`/proc/${pid}/stat`).split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11] ?? 0) + Number(f[12] ?? 0)) / TICK_S;
};
const size = (f: string): number => { try { return fs.statSync(f).size; } catch { return 0; } };

// Admin changes from inside the primary's namespace, one process: a peer created, then deleted.
const CHANGES = `
const [url, key, server, ms] = process.argv.slice(1);
const h = { 'wg-control-key': key, 'content-type': 'application/json' };
let n = 0, made = 0;
(async () => {
  for (;;) {
    const r = await fetch(url + '/api/servers/' + server + '/peers', { method: 'POST', headers: h, body: JSON.stringify({ name: 'change-' + n++ }) });
    if (r.status === 201) made++;
    const id = (await r.json()).id;
    await new Promise((s) => setTimeout(s, Number(ms)));
    if (id) { const d = await fetch(url + '/api/peers/' + id, { method: 'DELETE', headers: h }); if (d.status < 300) made++; }
    await new Promise((s) => setTimeout(s, Number(ms)));
    process.stdout.write(JSON.stringify({ made }) + '\\n');
  }
})();`;

interface RouterProbe { name: RouterName; pid: number; dataDir: string; wgPids: number[] }

function wireguardPids(pair: HaPair, name: RouterName): number[] {
  return sh('ip', ['netns', 'pids', pair.routers[name].ns.name]).split(/\s+/).filter(Boolean).map(Number)
    .filter((pid) => read(`/proc/${pid}/comm`).trim() === 'wireguard-go');
}

/** Copies the WAL into the database from outside (the daemon would later); resolves to the bytes that wrote. */
function checkpoint(dataDir: string): number {
  const db = new Database(path.join(dataDir, 'wgcp.db'));
  const before = writeBytes('self');
  try { db.pragma('wal_checkpoint(PASSIVE)'); } finally { db.close(); }
  return writeBytes('self') - before;
}

function journalRows(dataDir: string): number {
  const db = new Database(path.join(dataDir, 'wgcp.db'), { readonly: true });
  try { return db.prepare('SELECT COUNT(*) FROM ha_journal').pluck().get() as number; } finally { db.close(); }
}

/** The sequence a router stands at, and the rows journaled after `after` by table. */
function journalSince(dataDir: string, after = -1): { seq: number; byTable: string } {
  const db = new Database(path.join(dataDir, 'wgcp.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT tbl, COUNT(*) AS n, COUNT(DISTINCT seq) AS changes FROM ha_journal WHERE seq > ? GROUP BY tbl ORDER BY n DESC LIMIT 5').all(after) as { tbl: string; n: number; changes: number }[];
    return { seq: db.prepare('SELECT seq FROM ha_state').pluck().get() as number, byTable: rows.map((r) => `${r.tbl} ${r.n} in ${r.changes}`).join(', ') };
  } finally { db.close(); }
}

async function phase(label: string, probes: RouterProbe[], seconds: number): Promise<string[]> {
  for (const p of probes) checkpoint(p.dataDir);
  const start = probes.map((p) => ({
    cpu: cpuS(p.pid), wg: p.wgPids.reduce((a, w) => a + cpuS(w), 0), wrote: writeBytes(p.pid),
    db: size(path.join(p.dataDir, 'wgcp.db')), journal: journalRows(p.dataDir), at: journalSince(p.dataDir).seq, tally: new WalTally(path.join(p.dataDir, 'wgcp.db')),
  }));
  for (const s of start) s.tally.mark();
  const t0 = Date.now();
  const poll = setInterval(() => { for (const s of start) s.tally.poll(); }, 1000);
  await sleep(seconds * 1000);
  clearInterval(poll);
  for (const s of start) s.tally.poll();
  const elapsed = (Date.now() - t0) / 1000;
  const load = read('/proc/loadavg').split(' ').slice(0, 3).join(' ');
  const lines: string[] = [];
  probes.forEach((p, i) => {
    const s = start[i];
    const wrote = writeBytes(p.pid) - s.wrote;
    const tables = [...s.tally.byTable()].slice(0, 5).map(([n, b]) => `${n} ${((b * 86_400) / elapsed / 1e6).toFixed(0)}`).join(', ');
    const copied = checkpoint(p.dataDir);
    const perDay = ((wrote + copied) * 86_400) / elapsed / 1e6;
    const perHour = (x: number) => ((x * 3600) / elapsed).toFixed(0);
    lines.push(`| ${label} | ${p.name === 'a' ? 'primary' : 'standby'} | ${perHour(cpuS(p.pid) - s.cpu)} | ${perHour(p.wgPids.reduce((a, w) => a + cpuS(w), 0) - s.wg)} | ${perDay.toFixed(0)} (${(wrote / 1e6).toFixed(1)} + ${(copied / 1e6).toFixed(1)} MB) | ${(((size(path.join(p.dataDir, 'wgcp.db')) - s.db) * 86_400) / elapsed / 1e6).toFixed(0)} | ${s.journal} -> ${journalRows(p.dataDir)} | ${tables} | ${load} |`);
  });
  for (const l of lines) console.log(l);
  probes.forEach((p, i) => console.log(`- ${label}, ${p.name === 'a' ? 'primary' : 'standby'}: changes ${start[i].at} -> ${journalSince(p.dataDir).seq}; rows journaled in them by table: ${journalSince(p.dataDir, start[i].at).byTable}`));
  return lines;
}

async function main(): Promise<void> {
  if (os.userInfo().uid !== 0) throw new Error('ha-standby-cost needs root (namespaces, keepalived, wireguard-go)');
  const pair = new HaPair();
  const children: ChildProcess[] = [];
  const fakeDir = writeFakeWg(fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-ha-cost-wg-')), execFileSync('sh', ['-c', 'command -v wg'], { encoding: 'utf8' }).trim());
  try {
    freezeTraffic(fakeDir, false);
    // No device request limit: the set-up enrols the fleet as fast as it can (the bench counts the steady cost).
    const env = { PATH: `${fakeDir}:${process.env.PATH}`, WGCP_DEVICE_RATE: '0' };
    await pair.startDaemon('a', env);
    const api = (name: RouterName, method: string, p: string, body?: unknown) => pair.routers[name].daemon!.api(method, p, body);
    pair.startKeepalived('a');
    await pair.waitForHolder('a');
    while ((await api('a', 'GET', '/api/ha')).json.role !== 'primary') await sleep(200);
    const server = await api('a', 'POST', '/api/servers', { name: 'fleet', endpoint: `${VIRTUAL_ADDRESS}:51820`, mode: 'forward', address: '10.80.0.1/16', listenPort: 51820 });
    if (server.status !== 201) throw new Error(`server: ${server.text}`);
    const salt = fs.readFileSync(path.join(pair.routers.a.dataDir, 'server-salt'), 'utf8').trim();
    const t0 = Date.now();
    const sim = pair.routers.a.ns.spawn(process.execPath, [SIM, '8080', pair.apiKey, salt, String(server.json.id), String(DEVICES), '60', 'ha']);
    children.push(sim);
    let simLast: Record<string, unknown> = {};
    let provisioned = false;
    let simErr = '';
    sim.stderr!.on('data', (d: Buffer) => { simErr += d.toString(); });
    sim.stdout!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n').filter((l) => l.startsWith('{'))) {
        const j = JSON.parse(line);
        if ('provisioned' in j) provisioned = true; else simLast = j;
      }
    });
    while (!provisioned) {
      if (sim.exitCode !== null) throw new Error(`the simulated devices did not start: ${simErr}`);
      await sleep(1000);
    }
    console.log(`${DEVICES} devices provisioned in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    // The standby starts once the fleet is there (a set-up without acknowledgements is many
    // times faster): it catches up from the primary's snapshot, then follows the tail.
    await pair.startDaemon('b', env);
    const ha = async (name: RouterName) => (await api(name, 'GET', '/api/ha')).json as { role: string; sequence: number; partner: { connected: boolean; behind: number } };
    while (!(await ha('a')).partner.connected || (await ha('b')).sequence < (await ha('a')).sequence - 5) await sleep(1000);
    console.log(`the standby caught up ${((Date.now() - t0) / 1000).toFixed(0)} s after the start`);
    const probes: RouterProbe[] = (['a', 'b'] as const).map((name) => ({ name, pid: pair.routers[name].daemon!.pid, dataDir: pair.routers[name].dataDir, wgPids: wireguardPids(pair, name) }));
    if (probes.some((p) => read(`/proc/${p.pid}/comm`).trim() !== 'node')) throw new Error('a router\'s pid is not its wgcpd');
    console.log(`warm-up ${WARM_S} s (every device's first report, the first usage cycles)`);
    await sleep(WARM_S * 1000);
    const head = ['| phase | router | wgcpd CPU s an hour | wireguard-go CPU s an hour | MB written a day (write_bytes + checkpoint in the phase) | database file growth, MB a day | journal rows | WAL frames by table, MB a day | load average |', '|---|---|---:|---:|---:|---:|---:|---|---|'];
    console.log(head.join('\n'));
    const results = [...await phase('heartbeats + usage', probes, PHASE_S)];
    const changes = pair.routers.a.ns.spawn(process.execPath, ['-e', CHANGES, 'http://127.0.0.1:8080', pair.apiKey, String(server.json.id), String(CHANGE_MS)]);
    children.push(changes);
    let made = 0;
    changes.stdout!.on('data', (d: Buffer) => { const m = /"made":(\d+)\}\n?$/.exec(d.toString().trim()); if (m) made = Number(m[1]); });
    const madeBefore = made;
    results.push(...await phase(`+ a change every ${CHANGE_MS} ms`, probes, PHASE_S));
    const [a, b] = await Promise.all([ha('a'), ha('b')]);
    console.log([
      '', `the standby's steady cost: ${DEVICES} devices (each a peer, counters moving every minute), heartbeat every 60 s, usage cycle every 60 s, phases of ${PHASE_S} s after ${WARM_S} s of warm-up`,
      ...machineLines(), `- cores: ${os.cpus().length}; other sessions' work ran beside`,
      `- heartbeats: ${JSON.stringify(simLast)}`,
      `- admin changes in the second phase: ${made - madeBefore}; at the end primary seq ${a.sequence}, standby seq ${b.sequence}, behind ${b.partner.behind}, connected ${a.partner.connected}`,
      '', ...head, ...results,
    ].join('\n'));
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    pair.destroy();
    fs.rmSync(fakeDir, { recursive: true, force: true });
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
