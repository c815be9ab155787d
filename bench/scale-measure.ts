// One size of the end-to-end bench: every change and read in rounds, 1,000 heartbeats, RSS,
// then a restart (start-up with reconcile, the start-up usage cycle) and RSS again after
// 1,000 more heartbeats.
import os from 'node:os';
import type { Daemon } from './scale-daemon';
import { CHANGES, READS, emptyFigures, type Fleet, type Figures } from './scale-fleet';
import { Samples } from './scale-http';
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
  const afterWork = daemon.memory();
  await daemon.stop();
  await daemon.start();
  const reconciled = daemon.reconciledPeers();
  if (reconciled !== fleet.size) throw new Error(`start-up reconciled ${reconciled} peers, the fleet has ${fleet.size}`);
  await fleet.heartbeats(HEARTBEATS, new Samples());
  const afterRestart = daemon.memory();
  return { peers: fleet.size, figures, fill, startMs: daemon.startMs, afterWork, afterRestart, loadBefore, loadAfter: load() };
}
