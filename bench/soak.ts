// The fleet soak, longer: as test/fleet-soak.test.ts with more of everything.
//   node dist/bench/soak.js     (root; the agent bundle built: npm --prefix agent run build)
//   WGCP_SOAK_DEVICES=10000 WGCP_SOAK_AGENTS=20 WGCP_SOAK_INTERVAL_S=60 WGCP_SOAK_AGENT_INTERVAL_S=60
//   WGCP_SOAK_DURATION_S=600 WGCP_SOAK_KILLS=10 WGCP_SOAK_KILLS_FROM_S=0 (a steady stretch first)
//   WGCP_SOAK_BUSY=1 (every peer's counters moving: bench/flash-fake-wg.ts)
//   WGCP_SOAK_CLEAN_FROM_S=0 (the steady writes counted again from this second of the stretch,
//   after the first flush's one-time rewrite of each device's row)
// The daemon's writes are tallied by table from its WAL's frames (wal-frames.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { runSoak, type SoakPhase } from '../test/helpers/fleet-soak';
import { writeFakeWg } from './flash-fake-wg';
import { machineLines } from './scale-namespace';
import { WalTally } from './wal-frames';

const env = (name: string, dflt: number) => Number(process.env[name] ?? dflt);

async function main(): Promise<void> {
  const o = {
    label: 'sb', devices: env('WGCP_SOAK_DEVICES', 10_000), agents: env('WGCP_SOAK_AGENTS', 20), intervalS: env('WGCP_SOAK_INTERVAL_S', 60),
    agentIntervalS: env('WGCP_SOAK_AGENT_INTERVAL_S', 60), durationS: env('WGCP_SOAK_DURATION_S', 600), kills: env('WGCP_SOAK_KILLS', 10),
    killsFromS: env('WGCP_SOAK_KILLS_FROM_S', 0), steadyCleanFromS: env('WGCP_SOAK_CLEAN_FROM_S', 0),
    log: (l: string) => console.log(`${new Date().toISOString()} ${l}`),
  };
  const busy = process.env.WGCP_SOAK_BUSY === '1';
  const fakeDir = busy ? writeFakeWg(fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-soak-wg-')), execFileSync('sh', ['-c', 'command -v wg'], { encoding: 'utf8' }).trim()) : undefined;
  // The WAL tallied over the steady stretch only: from its first second (or WGCP_SOAK_CLEAN_FROM_S) to its last.
  let tally: WalTally | null = null;
  let steadyTables: Map<string, number> | null = null;
  let steadyAt: number | null = null;
  const everySecond = (_pid: number, dataDir: string, phase: SoakPhase) => {
    if (phase === 'steady') steadyAt ??= Date.now();
    const counting = phase === 'steady' && Date.now() - steadyAt! >= o.steadyCleanFromS * 1000;
    if (counting && !tally) { tally = new WalTally(path.join(dataDir, 'wgcp.db')); tally.mark(); }
    else if (counting) tally!.poll();
    else if (phase === 'cuts' && tally && !steadyTables) steadyTables = tally.byTable();
  };
  const f = await runSoak({ ...o, wgPath: fakeDir, everySecond });
  const tables = steadyTables ?? new Map<string, number>();
  const tallyS = Math.max(1, o.killsFromS - o.steadyCleanFromS);
  const walTotal = [...tables.values()].reduce((a, b) => a + b, 0);
  const agentRss = [...f.agentRssMB].sort((a, b) => a - b);
  console.log([
    '', `fleet soak: ${o.devices} simulated devices every ${o.intervalS} s, ${o.agents} agents every ${o.agentIntervalS} s, ${o.durationS} s, ${o.kills} power cuts`,
    ...machineLines(),
    ...(o.killsFromS ? [
      `- steady stretch, ${o.killsFromS} s${busy ? ', every peer\'s counters moving' : ''}: heartbeats ${f.steadySim.beats} answered, ${f.steadySim.lost} lost, by status ${JSON.stringify(f.steadySim.statuses)}; p50 ${f.steadySim.p50.toFixed(1)} ms, p99 ${f.steadySim.p99.toFixed(1)} ms, max ${f.steadySim.max.toFixed(0)} ms`,
      `- steady stretch: wgcpd RSS by minute ${f.steadyRssMB.map((x) => x.toFixed(1)).join(' ')} MB`,
      `- steady stretch: wgcpd wrote ${(f.steadyWriteBytesPerDay / 1e6).toFixed(0)} MB a day (write_bytes)${f.steadyCleanWriteBytesPerDay === null ? '' : `, ${(f.steadyCleanWriteBytesPerDay / 1e6).toFixed(0)} MB a day from second ${o.steadyCleanFromS}`}; WAL frames${o.steadyCleanFromS ? ` from second ${o.steadyCleanFromS}` : ''} ${((walTotal * 86_400) / tallyS / 1e6).toFixed(0)} MB a day, by table: ${[...tables].slice(0, 10).map(([n, b]) => `${n} ${((b * 86_400) / tallyS / 1e6).toFixed(1)}`).join(', ')}`,
    ] : []),
    `- heartbeats: ${f.sim.beats} answered, ${f.sim.lost} lost, by status ${JSON.stringify(f.sim.statuses)}; p50 ${f.sim.p50.toFixed(1)} ms, p99 ${f.sim.p99.toFixed(1)} ms, max ${f.sim.max.toFixed(0)} ms (retries across a cut included)`,
    `- cuts: ${f.restarts.map((r) => `back in ${(r.downMs / 1000).toFixed(1)} s, refused heartbeats answered by ${r.retriedAnsweredAfterS.toFixed(1)} s after, all answered ${r.allAnsweredAfterS.toFixed(1)} s after, ${r.peersMissing.length}/${r.peersChecked} committed peers missing`).join('; ')}`,
    `- agents restarted together: ${f.agentsBackWithoutToken} of ${o.agents} back without a new token; devices ${f.devicesBefore} -> ${f.devicesAfter}`,
    `- wgcpd RSS ${f.daemonRssMB.start.toFixed(1)} MB at the start, ${f.daemonRssMB.end.toFixed(1)} MB at the end (after the last restart); it wrote ${(f.daemonWriteBytesPerDay / 1e6).toFixed(0)} MB a day since then`,
    `- agents' RSS: min ${agentRss[0].toFixed(1)}, median ${agentRss[Math.floor(agentRss.length / 2)].toFixed(1)}, max ${agentRss[agentRss.length - 1].toFixed(1)} MB`,
  ].join('\n'));
}

main().catch((err) => { console.error(err); process.exit(1); });
