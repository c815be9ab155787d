// One size of the end-to-end bench: every change and read in rounds, 1,000 heartbeats, RSS,
// then a restart (start-up with reconcile, the start-up usage cycle) and RSS again after
// 1,000 more heartbeats.
import os from 'node:os';
import type { Daemon } from './scale-daemon';
import { CHANGES, READS, emptyFigures, type Fleet, type Figures } from './scale-fleet';
import { Samples, type Client } from './scale-http';
import type { SizeResult } from './scale-report';

export const HEARTBEATS = 1000;
export const load = (): number => os.loadavg()[0];
export const say = (line: string): void => { process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`); };

export async function measureSize(daemon: Daemon, fleet: Fleet, fill: Samples, rounds: number, beats: number): Promise<SizeResult> {
  const loadBefore = load();
  const figures: Figures = { ...emptyFigures(CHANGES), ...emptyFigures(READS) };
  for (let r = 0; r < rounds; r++) await fleet.changeRound(r, figures, beats);
  for (let r = 0; r < rounds; r++) await fleet.readRound(r, figures);
  await fleet.heartbeats(HEARTBEATS, figures['heartbeat, kept answer']);
  await fleet.wholeAnswerRounds(rounds, figures);
  const afterWork = daemon.memory();
  await daemon.stop();
  await daemon.start();
  const reconciled = daemon.reconciledPeers();
  if (reconciled !== fleet.size) throw new Error(`start-up reconciled ${reconciled} peers, the fleet has ${fleet.size}`);
  await fleet.heartbeats(HEARTBEATS, new Samples());
  const afterRestart = daemon.memory();
  return { peers: fleet.size, figures, fill, startMs: daemon.startMs, afterWork, afterRestart, loadBefore, loadAfter: load() };
}

/**
 * The daemon's own count of its usage cycles (GET /metrics, read last: loading the metrics
 * library costs memory), as one line: how many ran, their mean, and how many took 100 ms
 * or less and 250 ms or less. Each includes reading `wg show dump` from wireguard-go.
 */
export async function usageCyclesLine(client: Client): Promise<string> {
  const text = (await client.must('GET', '/metrics')).text;
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  const count = num(/^wgcp_usage_cycle_duration_seconds_count\s+(\S+)/m);
  const sum = num(/^wgcp_usage_cycle_duration_seconds_sum\s+(\S+)/m);
  const upTo = (le: string) => num(new RegExp(`^wgcp_usage_cycle_duration_seconds_bucket\\{le="${le}"\\}\\s+(\\S+)`, 'm'));
  return `- usage cycles in the daemon's last life (its own histogram, GET /metrics): ${count}, mean ${(1000 * sum / count).toFixed(0)} ms, ${upTo('0.1')} of them within 100 ms, ${upTo('0.25')} within 250 ms`;
}
