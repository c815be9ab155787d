// `wgcp-agent status`: where the agent stands, never a key. A running agent is asked
// through its socket (status-socket.ts): its state and its last heartbeat as it holds them.
// A stopped one is said to be STOPPED, with the last heartbeat its record kept: written at
// every stop, so exact after a clean stop, at most an hour old after a crash or power cut.
import fs from 'node:fs';
import path from 'node:path';
import { displayOf, type Display, type State } from './machine';
import { loadRecord, STATE_FILE } from './persist';
import { PID_FILE, runningAgent } from './lock';
import { askRunningAgent } from './status-socket';

export interface StatusReport {
  running: boolean;
  /** The lifecycle state of a running agent; STOPPED when none runs. */
  state: State | 'STOPPED';
  display: Display;
  device_id: string | null;
  last_heartbeat: string | null;
  /** What is wrong with the configuration file, when something is: the next start would stop on it. */
  config_problem?: string;
}

const mtimeMs = (file: string): number => { try { return fs.statSync(file).mtimeMs; } catch { return 0; } };

export async function statusReport(stateDir: string, timeoutMs = 3000): Promise<StatusReport> {
  // Order matters: the pid file, then the record's time, then the record. A record not
  // newer than the pid file is from the previous run: the running agent is still booting.
  const running = runningAgent(stateDir) !== null;
  if (running) {
    const live = await askRunningAgent(stateDir, timeoutMs);
    if (live !== null) return { running, state: live.state, display: displayOf(live, true), device_id: live.device_id, last_heartbeat: live.last_heartbeat };
  }
  // No answer: no agent, or one that is starting (its socket not made yet).
  const pidTime = running ? mtimeMs(path.join(stateDir, PID_FILE)) : 0;
  const recordTime = mtimeMs(path.join(stateDir, STATE_FILE));
  const { record } = loadRecord(stateDir);
  if (!running) return { running, state: 'STOPPED', display: 'disconnected', device_id: record.device_id, last_heartbeat: record.last_heartbeat };
  const current = recordTime <= pidTime ? { ...record, state: 'BOOT' as const } : record;
  return { running, state: current.state, display: displayOf(current, true), device_id: current.device_id, last_heartbeat: current.last_heartbeat };
}
