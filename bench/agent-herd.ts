// A site's power back: N real wgcp-agent processes (each its own state folder and tunnel, in
// one device namespace) against wgcpd with its kernel on, all SIGKILLed and started again in
// the same second. The daemon's request log (debug level) gives every heartbeat's time;
// the figure is the peak heartbeat rate in 5-second windows after the first 10 s, against
// the steady rate (N / interval), counted twice: from the kill, and from the moment the last
// agent was running (its pid file written), since 100 Node processes starting on a test
// host's 2 cores take many seconds where a site's devices each start on their own CPU.
// Needs root; the agent bundle built.
//   node dist/bench/agent-herd.js [agents=100] [interval_s=20] [watch_s=60]
import fs from 'node:fs';
import path from 'node:path';
import { AgentInstall, newToken, startAgentWorld } from '../test/helpers/agent-world';
import { startNsDaemon } from '../test/helpers/ns-daemon';
import { machineLines } from './scale-namespace';

const AGENTS = Number(process.argv[2] ?? 100);
const INTERVAL_S = Number(process.argv[3] ?? 20);
const WATCH_S = Number(process.argv[4] ?? 60);
const WINDOW_S = 5;

async function main(): Promise<void> {
  const w = await startAgentWorld('herd');
  const agents: AgentInstall[] = [];
  try {
    await w.daemon.stop();
    w.daemon = await startNsDaemon(w.router, { dataDir: w.dataDir, env: { ...w.daemonEnv, WGCP_LOG_LEVEL: 'debug' } });
    for (let i = 0; i < AGENTS; i++) {
      const a = new AgentInstall(w);
      a.writeConfig(await newToken(w), { heartbeat_interval_s: INTERVAL_S });
      agents.push(a);
    }
    for (const a of agents) a.start();
    for (const a of agents) await a.waitConnected(300_000);
    console.log(`${AGENTS} agents connected`);
    await Promise.all(agents.map((a) => a.stop('SIGKILL')));
    const restartAt = Date.now();
    for (const a of agents) a.start();
    const running = (a: AgentInstall) => { try { return fs.readFileSync(path.join(a.stateDir, 'agent.pid'), 'utf8').startsWith(`${a.child!.pid} `); } catch { return false; } };
    while (!agents.every(running)) await new Promise((r) => setTimeout(r, 20));
    const allRunningAt = Date.now();
    await new Promise((r) => setTimeout(r, WATCH_S * 1000));
    const back = agents.filter((a) => a.status().display === 'connected').length;
    const again = agents.filter((a) => a.logs().some((l) => l.msg === 'provisioned')).length;
    const beats = w.daemon.output().split('\n').filter((l) => l.includes('"route":"/api/v1/heartbeat"'))
      .map((l) => JSON.parse(l) as { time: string; status: number }).filter((l) => Date.parse(l.time) >= restartAt);
    const statuses: Record<number, number> = {};
    for (const b of beats) statuses[b.status] = (statuses[b.status] ?? 0) + 1;
    const windowsFrom = (from: number) => {
      const windows: number[] = [];
      for (let s = 10; s + WINDOW_S <= WATCH_S; s += WINDOW_S) {
        windows.push(beats.filter((b) => { const t = (Date.parse(b.time) - from) / 1000; return t >= s && t < s + WINDOW_S; }).length / WINDOW_S);
      }
      return windows;
    };
    const windows = windowsFrom(restartAt);
    const windowsRunning = windowsFrom(allRunningAt);
    const firstTen = beats.filter((b) => Date.parse(b.time) - restartAt < 10_000).length;
    const steady = AGENTS / INTERVAL_S;
    console.log([
      '', `agent herd: ${AGENTS} agents, heartbeat every ${INTERVAL_S} s, restarted together, watched ${WATCH_S} s`, ...machineLines(),
      `- back connected: ${back} of ${AGENTS}; provisioned again (a new token spent): ${again}`,
      `- heartbeats by status: ${JSON.stringify(statuses)}; ${firstTen} in the first 10 s`,
      `- steady rate ${steady.toFixed(2)}/s; after 10 s, ${WINDOW_S}-s windows: ${windows.map((x) => x.toFixed(1)).join(' ')}; peak ${Math.max(...windows).toFixed(1)}/s = ${(Math.max(...windows) / steady).toFixed(2)}x steady`,
      `- all ${AGENTS} running ${((allRunningAt - restartAt) / 1000).toFixed(1)} s after the kill; from then, after 10 s: ${windowsRunning.map((x) => x.toFixed(1)).join(' ')}; peak ${Math.max(...windowsRunning).toFixed(1)}/s = ${(Math.max(...windowsRunning) / steady).toFixed(2)}x steady`,
    ].join('\n'));
  } finally {
    await Promise.all(agents.map((a) => a.stop('SIGKILL')));
    await w.destroy();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
