// The fleet soak, longer: as test/fleet-soak.test.ts with more of everything.
//   node dist/bench/soak.js     (root; the agent bundle built: npm --prefix agent run build)
//   WGCP_SOAK_DEVICES=10000 WGCP_SOAK_AGENTS=20 WGCP_SOAK_INTERVAL_S=60 WGCP_SOAK_AGENT_INTERVAL_S=60
//   WGCP_SOAK_DURATION_S=600 WGCP_SOAK_KILLS=10
import { runSoak } from '../test/helpers/fleet-soak';
import { machineLines } from './scale-namespace';

const env = (name: string, dflt: number) => Number(process.env[name] ?? dflt);

async function main(): Promise<void> {
  const o = {
    label: 'sb', devices: env('WGCP_SOAK_DEVICES', 10_000), agents: env('WGCP_SOAK_AGENTS', 20), intervalS: env('WGCP_SOAK_INTERVAL_S', 60),
    agentIntervalS: env('WGCP_SOAK_AGENT_INTERVAL_S', 60), durationS: env('WGCP_SOAK_DURATION_S', 600), kills: env('WGCP_SOAK_KILLS', 10),
    log: (l: string) => console.log(`${new Date().toISOString()} ${l}`),
  };
  const f = await runSoak(o);
  const agentRss = [...f.agentRssMB].sort((a, b) => a - b);
  console.log([
    '', `fleet soak: ${o.devices} simulated devices every ${o.intervalS} s, ${o.agents} agents every ${o.agentIntervalS} s, ${o.durationS} s, ${o.kills} power cuts`,
    ...machineLines(),
    `- heartbeats: ${f.sim.beats} answered, ${f.sim.lost} lost, by status ${JSON.stringify(f.sim.statuses)}; p50 ${f.sim.p50.toFixed(1)} ms, p99 ${f.sim.p99.toFixed(1)} ms, max ${f.sim.max.toFixed(0)} ms (retries across a cut included)`,
    `- cuts: ${f.restarts.map((r) => `back in ${(r.downMs / 1000).toFixed(1)} s, all answered ${r.allAnsweredAfterS.toFixed(1)} s after, ${r.peersMissing.length}/${r.peersChecked} committed peers missing`).join('; ')}`,
    `- agents restarted together: ${f.agentsBackWithoutToken} of ${o.agents} back without a new token; devices ${f.devicesBefore} -> ${f.devicesAfter}`,
    `- wgcpd RSS ${f.daemonRssMB.start.toFixed(1)} MB at the start, ${f.daemonRssMB.end.toFixed(1)} MB at the end (after the last restart); it wrote ${(f.daemonWriteBytesPerDay / 1e6).toFixed(0)} MB a day since then`,
    `- agents' RSS: min ${agentRss[0].toFixed(1)}, median ${agentRss[Math.floor(agentRss.length / 2)].toFixed(1)}, max ${agentRss[agentRss.length - 1].toFixed(1)} MB`,
  ].join('\n'));
}

main().catch((err) => { console.error(err); process.exit(1); });
