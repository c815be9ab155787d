// Idle memory and CPU per heartbeat of the running agent bundle, against the real daemon
// (namespaces and wireguard-go as in test/agent-e2e; needs root).
//   node dist/bench/agent-idle.js [seconds=60] [heartbeat_interval_s=1] [node flags...]
// RSS is sampled from /proc/<pid>/status once a second after the tunnel is up. CPU is
// utime+stime from /proc/<pid>/stat over the window (its children apart), divided by the
// heartbeats answered in it (each changes last_heartbeat in the state file, polled every 50 ms).
import fs from 'node:fs';
import path from 'node:path';
import { AgentInstall, newToken, startAgentWorld } from '../test/helpers/agent-world';

const SECONDS = Number(process.argv[2] ?? 60);
const INTERVAL = Number(process.argv[3] ?? 1);
const NODE_FLAGS = process.argv.slice(4);
const TICKS_PER_S = 100; // USER_HZ on Linux

const rssKb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
/** [own utime+stime, utime+stime of its reaped children (`wg show`, `ip`)], in ticks. */
const cpuTicks = (pid: number): [number, number] => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return [Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])];
};

async function main(): Promise<void> {
  const w = await startAgentWorld('bench');
  const agent = new AgentInstall(w, [process.execPath, ...NODE_FLAGS]);
  try {
    agent.writeConfig(await newToken(w), { heartbeat_interval_s: INTERVAL });
    agent.start();
    await agent.waitConnected(60_000);
    const pid = agent.child!.pid!;
    const stateFile = path.join(agent.stateDir, 'state.json');
    const lastHeartbeat = () => { try { return JSON.parse(fs.readFileSync(stateFile, 'utf8')).last_heartbeat as string; } catch { return ''; } };
    let seen = lastHeartbeat();
    let beats = 0;
    const samples: number[] = [];
    const cpu0 = cpuTicks(pid);
    const end = Date.now() + SECONDS * 1000;
    let nextSample = Date.now();
    while (Date.now() < end) {
      const now = lastHeartbeat();
      if (now && now !== seen) { beats++; seen = now; }
      if (Date.now() >= nextSample) { samples.push(rssKb(pid)); nextSample += 1000; }
      await new Promise((r) => setTimeout(r, 50));
    }
    const cpu1 = cpuTicks(pid);
    const cpuMs = ((cpu1[0] - cpu0[0]) * 1000) / TICKS_PER_S;
    const childMs = ((cpu1[1] - cpu0[1]) * 1000) / TICKS_PER_S;
    const mb = (kb: number) => (kb / 1024).toFixed(1);
    const sorted = [...samples].sort((a, b) => a - b);
    console.log(JSON.stringify({
      node: process.version, arch: process.arch, flags: NODE_FLAGS.join(' '), seconds: SECONDS, heartbeat_interval_s: INTERVAL,
      rss_mb: { min: mb(sorted[0]), median: mb(sorted[Math.floor(sorted.length / 2)]), max: mb(sorted[sorted.length - 1]) },
      heartbeats: beats, cpu_ms_total: cpuMs, cpu_ms_per_heartbeat: beats ? (cpuMs / beats).toFixed(2) : null,
      cpu_percent: ((cpuMs / (SECONDS * 1000)) * 100).toFixed(3),
      children_cpu_ms_per_heartbeat: beats ? (childMs / beats).toFixed(2) : null,
    }));
  } finally {
    await agent.stop('SIGTERM');
    await w.destroy();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
