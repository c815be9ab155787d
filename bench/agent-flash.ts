// The agent's own writes (its state file) per day at a heartbeat a minute: the running agent
// bundle against the real daemon (namespaces as in test/agent-e2e; needs root), its
// /proc/PID/io write_bytes over a window at a heartbeat a second, per heartbeat, times 1,440.
// The window holds one heartbeat a second.
//   node dist/bench/agent-flash.js [seconds=60]      (the bundle as built in agent/dist)
import fs from 'node:fs';
import { AgentInstall, newToken, startAgentWorld } from '../test/helpers/agent-world';

const SECONDS = Number(process.argv[2] ?? 60);
const writeBytes = (pid: number): number => Number(/^write_bytes: (\d+)/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
const rssMB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function main(): Promise<void> {
  const w = await startAgentWorld('afl');
  const agent = new AgentInstall(w);
  try {
    agent.writeConfig(await newToken(w), { heartbeat_interval_s: 1 });
    agent.start();
    await agent.waitConnected(60_000);
    const pid = agent.child!.pid!;
    const seenBefore = (await w.daemon.api('GET', '/api/devices')).json[0].lastSeenAt;
    const b0 = writeBytes(pid);
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const bytes = writeBytes(pid) - b0;
    const s = (Date.now() - t0) / 1000;
    const beats = s; // one a second
    console.log([
      `agent flash writes: ${SECONDS} s at a heartbeat a second (first seen ${seenBefore})`,
      `- write_bytes in the window: ${bytes} B, ${(bytes / beats).toFixed(0)} B a heartbeat -> ${((bytes / beats) * 1440 / 1e3).toFixed(1)} kB a day at a heartbeat a minute (beside the hourly write: 24 x one state file)`,
      `- RSS at the end: ${rssMB(pid).toFixed(1)} MB`,
    ].join('\n'));
  } finally {
    await agent.stop('SIGKILL');
    await w.destroy();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
