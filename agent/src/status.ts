// `wgcp-agent status`: what the stored record says, read without touching it. Never a key.
import fs from 'node:fs';
import path from 'node:path';
import { displayOf, type Display, type State } from './machine';
import { loadRecord, STATE_FILE } from './persist';
import { PID_FILE, runningAgent } from './lock';

export interface StatusReport {
  state: State;
  display: Display;
  device_id: string | null;
  last_heartbeat: string | null;
}

const mtimeMs = (file: string): number => { try { return fs.statSync(file).mtimeMs; } catch { return 0; } };

export function statusReport(stateDir: string): StatusReport {
  // Order matters: the pid file, then the record's time, then the record. A record not
  // newer than the pid file is from the previous run: the running agent is still booting.
  const running = runningAgent(stateDir) !== null;
  const pidTime = running ? mtimeMs(path.join(stateDir, PID_FILE)) : 0;
  const recordTime = mtimeMs(path.join(stateDir, STATE_FILE));
  const { record } = loadRecord(stateDir);
  const current = running && recordTime <= pidTime ? { ...record, state: 'BOOT' as const } : record;
  return {
    state: current.state,
    display: displayOf(current, running),
    device_id: current.device_id,
    last_heartbeat: current.last_heartbeat,
  };
}
