// Many drifted peers repaired as one batch (issue 33), against the alternatives. The real
// wgcpd (WGCP_KERNEL=on, wireguard-go) in a namespace of its own, its database seeded with
// one forward-mode server of N peers without a preshared key (as an import of wg-quick
// gives), every `wg` it runs counted by a wrapper first on its PATH:
//   1. no drift: a minute of usage cycles and audits, then the repairs, audit rows and `wg`
//      calls that changed anything (none expected: the zero key is `(none)` in the dump);
//   2. every peer removed by hand (`wg set … remove`), timed until the interface holds them
//      all again, with the `wg` calls the repair took and a peer create sent through the API
//      meanwhile (it waits for the change runner the repair holds);
//   3. the same N peers put on by hand three ways, for the cost of each: one `wg addconf`
//      (what the repair runs), N `wg set` processes (what it ran before), and the full
//      rebuild of the interface (`wg syncconf` of every peer, what a start-up runs);
//   4. the repair against a full rebuild through the daemon (issue 35): every peer deleted
//      from the kernel behind wgcpd's back, then the repair triggered (the next usage cycle,
//      1 s apart here, reads the dump and syncs the interface), timed until every peer is
//      back; against a restart of wgcpd (its start-up sync), timed from the spawn until every
//      peer is back. Target: the repair within 3x the rebuild.
//   node dist/bench/repair-batch.js [peers] [rounds]      (root)
//   WGCP_BENCH_QUICK=1: part 4 only.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { NO_PRESHARED_KEY } from '../src/wg/keys';
import { Store } from '../src/store/store';
import { Daemon } from './scale-daemon';
import { Client } from './scale-http';
import { machineLines, runInNamespace } from './scale-namespace';

const args = process.argv.filter((a) => a !== '--inside');
const PEERS = Number(args[2] ?? 2_000);
const ROUNDS = Number(args[3] ?? 3);
const IF = 'wgcp1';
const key = () => crypto.randomBytes(32).toString('base64');
const ip = (i: number) => `10.9.${(i + 2) >> 8}.${(i + 2) & 255}`;
const fmt = (ms: number) => (ms / 1000).toFixed(2);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sh = (cmd: string, argv: string[], input?: string) => execFileSync(cmd, argv, { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });

function seed(dir: string): { keys: string[]; privateKey: string } {
  const store = Store.open(dir);
  const now = new Date().toISOString();
  const privateKey = key();
  const server = store.servers.insert({
    name: 'bench', endpoint: '192.0.2.1:51820', mode: 'forward', address6: null, interface: IF, address: '10.9.0.1/16',
    listenPort: 51820, dns: '10.9.0.1', mtu: null, privateKey, publicKey: key(), createdAt: now, updatedAt: now,
  });
  const keys: string[] = [];
  store.tx(() => {
    for (let i = 0; i < PEERS; i++) {
      const publicKey = key();
      keys.push(publicKey);
      store.peers.insert({
        serverId: server.id, name: `p${i}`, email: '', ip6: null, ip: ip(i), publicKey, privateKey: null, presharedKey: NO_PRESHARED_KEY,
        allowAccess: [], allowInternet: i % 2 === 0, enabled: true, disabledReasons: [], dataLimitGB: 0, usageBytes: 0, expiresAt: null, createdAt: now, updatedAt: now,
      });
    }
  });
  store.close();
  return { keys, privateKey };
}

/** A wrapper for `wg` that counts the daemon's calls (one line each) and runs the real one. */
function wgCounter(): { dir: string; calls: () => string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-wgcount-'));
  const log = path.join(dir, 'calls');
  fs.writeFileSync(log, '');
  fs.writeFileSync(path.join(dir, 'wg'), `#!/bin/sh\necho "$1" >> '${log}'\nexec '${sh('sh', ['-c', 'command -v wg']).trim()}' "$@"\n`, { mode: 0o755 });
  return { dir, calls: () => fs.readFileSync(log, 'utf8').split('\n').filter((l) => l && l !== 'show') };
}

const held = () => sh('wg', ['show', IF, 'peers']).split('\n').filter(Boolean).length;
function removeAll(keys: string[]): void {
  for (let i = 0; i < keys.length; i += 1000) sh('wg', ['set', IF, ...keys.slice(i, i + 1000).flatMap((k) => ['peer', k, 'remove'])]);
}
async function until(what: string, check: () => boolean, limitMs = 300_000): Promise<number> {
  const t0 = performance.now();
  while (!check()) {
    if (performance.now() - t0 > limitMs) throw new Error(`${what}: not within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - t0;
}
const timed = (fn: () => void): number => { const t0 = performance.now(); fn(); return performance.now() - t0; };

/** Part 4: the repair of every peer deleted behind wgcpd's back, against a restart (the full rebuild). */
async function repairAgainstRestart(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-repair-rebuild-'));
  const { keys } = seed(dir);
  const d = new Daemon(dir, 18091, { WGCP_USAGE_INTERVAL_S: '1', WGCP_KERNEL_AUDIT_S: '3600' });
  await d.start();
  process.once('exit', () => { if (process.exitCode) console.error(d.log().slice(-3000)); });
  console.log(machineLines().join('\n'));
  await until('every peer up', () => held() >= PEERS);
  const repair: number[] = [];
  const rebuild: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    removeAll(keys);
    const t0 = performance.now();
    await until('every peer back', () => held() >= PEERS);
    repair.push(performance.now() - t0);
    await d.stop();
    const t1 = performance.now();
    await d.start();
    await until('every peer back after the restart', () => { try { return held() >= PEERS; } catch { return false; } });
    rebuild.push(performance.now() - t1);
  }
  await d.stop();
  console.log(`\n| ${PEERS} peers | median s | max s |\n|---|---:|---:|`);
  console.log(`| repair: every peer deleted behind wgcpd's back, until all are back (the wait for the next usage cycle, up to 1 s, included) | ${fmt(median(repair))} | ${fmt(Math.max(...repair))} |`);
  console.log(`| full rebuild: wgcpd restarted, from the spawn until all are back | ${fmt(median(rebuild))} | ${fmt(Math.max(...rebuild))} |`);
  console.log(`\nrepair / rebuild (medians): ${(median(repair) / median(rebuild)).toFixed(2)}x (target: within 3x)`);
  fs.rmSync(dir, { recursive: true, force: true });
}

async function live(): Promise<void> {
  if (process.env.WGCP_BENCH_QUICK === '1') return repairAgainstRestart();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-repair-bench-'));
  const { keys, privateKey } = seed(dir);
  const counter = wgCounter();
  const intervalS = 5;
  const d = new Daemon(dir, 18090, { WGCP_USAGE_INTERVAL_S: String(intervalS), WGCP_KERNEL_AUDIT_S: '10', PATH: `${counter.dir}:${process.env.PATH}` });
  await d.start();
  process.once('exit', () => { if (process.exitCode) console.error(d.log().slice(-3000)); });
  console.log(machineLines().join('\n'));
  console.log(`- wgcpd started with ${d.reconciledPeers()} peers (none with a preshared key) in ${fmt(d.startMs)} s; usage interval ${intervalS} s, full audit every 10 s\n`);
  const audits = async () => (await d.client.request('GET', '/api/audit?actor=reconciler&action=kernel.repair')).json.entries.length as number;
  const repairs = async () => Number(/^wgcp_kernel_drift_repairs_total\{kind="peer"\} (\d+)$/m.exec((await d.client.request('GET', '/metrics')).text)?.[1]);

  let mark = counter.calls().length;
  await new Promise((r) => setTimeout(r, 60_000));
  console.log(`no drift, one minute (12 usage cycles, 6 full audits): peer repairs ${await repairs()}, reconciler audit rows ${await audits()}, wg calls that change anything ${counter.calls().length - mark}\n`);

  const rows: { back: number; calls: string[]; create: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    mark = counter.calls().length;
    removeAll(keys);
    const t0 = performance.now();
    // A create sent once the repair has begun (the first peers are back) waits for it in the change runner.
    await until('the repair begins', () => held() > 0);
    // A connection of its own: a kept one may have been closed by the server while idle.
    const fresh = new Client(18090, d.client.key);
    const c0 = performance.now();
    const res = await fresh.request('POST', '/api/servers/1/peers', { name: `extra${r}` });
    fresh.close();
    const create = performance.now() - c0;
    if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
    await until('every peer back', () => held() >= PEERS + r + 1);
    rows.push({ back: performance.now() - t0, calls: counter.calls().slice(mark), create });
  }
  console.log(`| ${PEERS} peers removed by hand | until all are back, s | wg calls of the repair | a peer create sent during it, s |\n|---|---:|---|---:|`);
  rows.forEach((x, i) => console.log(`| round ${i + 1} | ${fmt(x.back)} | ${x.calls.join(', ')} | ${fmt(x.create)} |`));
  console.log(`\nreconciler audit rows after ${ROUNDS} rounds: ${await audits()}; peer repairs counted: ${await repairs()}`);
  await d.stop();

  // The three ways by hand, on the same interface (wireguard-go was stopped with the daemon: one of its own).
  const conf = (withInterface: boolean) => [
    ...(withInterface ? ['[Interface]', `PrivateKey = ${privateKey}`, 'ListenPort = 51820', ''] : []),
    ...keys.flatMap((k, i) => ['[Peer]', `PublicKey = ${k}`, `PresharedKey = ${NO_PRESHARED_KEY}`, `AllowedIPs = ${ip(i)}/32`, 'PersistentKeepalive = off', '']),
  ].join('\n');
  const file = path.join(dir, 'peers.conf');
  const wgo = execFileSync('sh', ['-c', `WG_PROCESS_FOREGROUND=1 nohup wireguard-go -f ${IF} >/dev/null 2>&1 & echo $!`], { encoding: 'utf8' }).trim();
  await until('wireguard-go', () => { try { sh('wg', ['show', IF, 'listen-port']); return true; } catch { return false; } }, 10_000);
  const ways: Record<string, number[]> = { addconf: [], set: [], syncconf: [] };
  for (let r = 0; r < ROUNDS; r++) {
    fs.writeFileSync(file, conf(false), { mode: 0o600 });
    removeAll(keys);
    ways.addconf.push(timed(() => sh('wg', ['addconf', IF, file])));
    removeAll(keys);
    const psk = path.join(dir, 'psk');
    fs.writeFileSync(psk, `${NO_PRESHARED_KEY}\n`, { mode: 0o600 });
    ways.set.push(timed(() => keys.forEach((k, i) => sh('wg', ['set', IF, 'peer', k, 'preshared-key', psk, 'allowed-ips', `${ip(i)}/32`]))));
    removeAll(keys);
    fs.writeFileSync(file, conf(true), { mode: 0o600 });
    ways.syncconf.push(timed(() => sh('wg', ['syncconf', IF, file])));
    if (held() !== PEERS) throw new Error('syncconf did not put every peer on');
  }
  process.kill(Number(wgo), 'SIGTERM');
  console.log(`\n| ${PEERS} peers put on an interface by hand (${ROUNDS} rounds) | median s | max s |\n|---|---:|---:|`);
  const row = (name: string, xs: number[]) => console.log(`| ${name} | ${fmt(median(xs))} | ${fmt(Math.max(...xs))} |`);
  row('one `wg addconf` of every peer (the repair now)', ways.addconf);
  row(`${PEERS} \`wg set\` processes, one a peer (the repair before)`, ways.set);
  row('`wg syncconf` of the whole interface (the full rebuild of a start-up)', ways.syncconf);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(counter.dir, { recursive: true, force: true });
  await repairAgainstRestart();
}

if (args.includes('--help')) console.log('node dist/bench/repair-batch.js [peers] [rounds]');
else if (process.argv.includes('--inside')) void live().catch((err) => { console.error(err); process.exitCode = 1; process.exit(); });
else if (process.getuid?.() !== 0) console.log('repair-batch needs root (a network namespace of its own)');
else runInNamespace(__filename, 'rpb');
