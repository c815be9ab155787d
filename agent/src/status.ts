// `wgcp-agent status`: what the stored record says, read without touching it. Never a key.
import { displayOf, type Display, type State } from './machine';
import { loadRecord } from './persist';
import { runningAgent } from './lock';

export interface StatusReport {
  state: State;
  display: Display;
  device_id: string | null;
  last_heartbeat: string | null;
}

export function statusReport(stateDir: string): StatusReport {
  const { record } = loadRecord(stateDir);
  return {
    state: record.state,
    display: displayOf(record, runningAgent(stateDir) !== null),
    device_id: record.device_id,
    last_heartbeat: record.last_heartbeat,
  };
}
