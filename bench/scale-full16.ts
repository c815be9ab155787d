// A /16 filled through the API (issue 15): one server of 10.91.0.1/16 on the real wgcpd
// with its kernel on grows to all 65,533 host addresses (the server holds the first; one
// peer in five a provisioned device), the next create is refused, three freed addresses
// (the first, one in the middle, the last) come back lowest first, and every change and
// read is timed at that size with RSS and start-up, as bench/scale-e2e.ts does.
//   npx tsc -p . && node dist/bench/scale-full16.js      (root; about 15 minutes)
//   WGCP_BENCH_ROUNDS=20 WGCP_BENCH_BEATS=20 WGCP_BENCH_OUT=results.json
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Daemon } from './scale-daemon';
import { CHANGES, Fleet, READS } from './scale-fleet';
import { Samples, type Client } from './scale-http';
import { load, measureSize, say, usageCyclesLine } from './scale-measure';
import { machineLines, runInNamespace } from './scale-namespace';
import { memoryTable, sizeTable } from './scale-report';

const ROUNDS = Number(process.env.WGCP_BENCH_ROUNDS ?? 20);
const BEATS = Number(process.env.WGCP_BENCH_BEATS ?? 20);
const FULL = 65_533;
const PROBES = ['10.91.0.2', '10.91.128.0', '10.91.255.254'];

/** The id of the peer holding an address, found through the API's search. */
async function holder(fleet: Fleet, client: () => Client, ip: string): Promise<number> {
  const page = await client().must('GET', `/api/servers/${fleet.serverId}/peers?q=${ip}&limit=10`);
  const p = (page.json as { id: number; ip: string }[]).find((x) => x.ip === ip);
  if (!p) throw new Error(`no peer holds ${ip}`);
  return p.id;
}

async function inside(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-full16-'));
  const daemon = new Daemon(dataDir, 18081, { WGCP_USAGE_INTERVAL_S: process.env.WGCP_BENCH_USAGE_S ?? '60' });
  const client = () => daemon.client;
  const lines: string[] = [];
  try {
    await daemon.start();
    const fleet = await Fleet.create(client, 'full16', '10.91.0.1/16', `wgfull${process.pid % 10000}`, 51910);
    const fill: string[] = ['| peers reached | creates in this stretch: median / p95 (ms) | load |', '|---:|---:|---:|'];
    const all = new Samples();
    for (let target = 5000; ; target = Math.min(target + 5000, FULL)) {
      const creates = await fleet.growTo(target);
      creates.values.forEach((v) => all.add(v));
      fill.push(`| ${fleet.size} | ${creates.median.toFixed(1)} / ${creates.p95.toFixed(1)} | ${load().toFixed(2)} |`);
      say(`${fleet.size} peers`);
      if (target === FULL) break;
    }
    const refused = await client().request('POST', `/api/servers/${fleet.serverId}/peers`, {});
    if (refused.status !== 400 || !refused.text.includes('no free address')) throw new Error(`a create in the full /16 answered ${refused.status} ${refused.text}`);
    lines.push(`- full at ${fleet.size} peers: the next create answers ${refused.status} ${refused.text}`);
    for (const ip of PROBES) {
      const id = await holder(fleet, client, ip);
      await client().must('DELETE', `/api/peers/${id}`);
      fleet.forget(id);
    }
    const given: string[] = [];
    for (let i = 0; i < PROBES.length; i++) given.push((await fleet.addPeer()).ip);
    if (given.join() !== PROBES.join()) throw new Error(`freed ${PROBES.join(', ')} came back as ${given.join(', ')}`);
    lines.push(`- ${PROBES.join(', ')} freed, then given again lowest first: ${given.join(', ')}`);
    // One address free again, so that the rounds can create and delete.
    const last = await holder(fleet, client, PROBES[2]);
    await client().must('DELETE', `/api/peers/${last}`);
    fleet.forget(last);
    say(`measuring at ${FULL - 1} peers`);
    const result = await measureSize(daemon, fleet, all, ROUNDS, BEATS);
    lines.push(await usageCyclesLine(daemon.client));
    process.stdout.write([...machineLines(), `- ${ROUNDS} rounds, ${BEATS} heartbeats a round; milliseconds`, '', ...fill, '', ...lines, '',
      sizeTable(result, [...CHANGES, ...READS]), '', memoryTable([result]), ''].join('\n'));
    if (process.env.WGCP_BENCH_OUT) fs.writeFileSync(process.env.WGCP_BENCH_OUT, JSON.stringify({ fill, lines, startMs: result.startMs, afterWork: result.afterWork, afterRestart: result.afterRestart }, null, 1));
  } catch (err) {
    say(`wgcpd's last output:\n${daemon.log().slice(-3000)}`);
    throw err;
  } finally {
    await daemon.stop();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

if (process.argv.includes('--inside')) {
  inside().catch((err) => { process.stderr.write(`${err instanceof Error ? err.stack : err}\n`); process.exit(1); });
} else {
  runInNamespace(__filename, 'full');
}
