// The agent lifecycle of the device-agent contract (section 3), as pure functions: the
// state table, and the persisted record an event turns into the next record. Effects
// (network, tunnel, disk) live in agent.ts and only produce these events.
export const STATES = ['BOOT', 'APP_INIT', 'PROVISION', 'APP_RETRY', 'TUNNEL_UP', 'HEARTBEAT', 'TUNNEL_REBUILD'] as const;
export type State = (typeof STATES)[number];

export type Event =
  | { type: 'start' }
  | { type: 'config_loaded' }
  /** Provisioning result, success: from the server (`fresh`) or from the stored configuration. */
  | { type: 'provisioned'; fresh: boolean; sealed: string; deviceId: string }
  /** Provisioning result, failure. */
  | { type: 'provision_failed'; reason: string }
  /** The stored configuration could not be opened: it is dropped, provisioning goes on. */
  | { type: 'stored_config_cleared'; reason: string }
  | { type: 'retry' }
  | { type: 'tunnel_established' }
  /** A heartbeat answer; `rebuild` when forwards_hash or a tunnel field differs from what runs. */
  | { type: 'heartbeat_answer'; at: string; tunnelUp: boolean; forwardsHash: string | null; rebuild: boolean; sealed?: string }
  /** A heartbeat that got no answer after its attempts (or an error answer): the loop goes on. */
  | { type: 'heartbeat_failed'; at: string; reason: string }
  | { type: 'tunnel_rebuilt' };

export type EventType = Event['type'];

/** What is kept on disk between runs. Never holds a key in plaintext. */
export interface AgentRecord {
  version: 1;
  state: State;
  /** The configuration payload, sealed as encrypted_config is (base64 nonce||ciphertext||tag). */
  sealed_config: string | null;
  device_id: string | null;
  forwards_hash: string | null;
  /** Time of the last answered heartbeat. */
  last_heartbeat: string | null;
  /** Outcome of the last heartbeat since the tunnel came up: null when none was sent yet. */
  last_heartbeat_ok: boolean | null;
  last_error: string | null;
  tunnel_up: boolean;
  /** Consecutive provisioning failures: the APP_RETRY back-off grows with it. */
  failures: number;
}

export function initialRecord(): AgentRecord {
  return {
    version: 1, state: 'BOOT', sealed_config: null, device_id: null, forwards_hash: null,
    last_heartbeat: null, last_heartbeat_ok: null, last_error: null, tunnel_up: false, failures: 0,
  };
}

/**
 * The contract's state table. Events a state has no row for are refused; the events that
 * keep the state (stored_config_cleared, heartbeat_failed, an answer without changes) are
 * the "loop continues" of the contract's failure rules.
 */
export function nextState(state: State, event: Event): State {
  switch (`${state}:${event.type}`) {
    case 'BOOT:start': return 'APP_INIT';
    case 'APP_INIT:config_loaded': return 'PROVISION';
    case 'PROVISION:provisioned': return 'TUNNEL_UP';
    case 'PROVISION:provision_failed': return 'APP_RETRY';
    case 'PROVISION:stored_config_cleared': return 'PROVISION';
    case 'APP_RETRY:retry': return 'APP_INIT';
    case 'TUNNEL_UP:tunnel_established': return 'HEARTBEAT';
    case 'HEARTBEAT:heartbeat_answer': return (event as { rebuild: boolean }).rebuild ? 'TUNNEL_REBUILD' : 'HEARTBEAT';
    case 'HEARTBEAT:heartbeat_failed': return 'HEARTBEAT';
    case 'TUNNEL_REBUILD:tunnel_rebuilt': return 'HEARTBEAT';
    default: throw new Error(`event ${event.type} is not allowed in state ${state}`);
  }
}

/** The record after an event: the next state and the data the event carries. */
export function reduce(record: AgentRecord, event: Event): AgentRecord {
  const state = nextState(record.state, event);
  const r: AgentRecord = { ...record, state };
  switch (event.type) {
    case 'provisioned':
      r.sealed_config = event.sealed;
      r.device_id = event.deviceId;
      r.failures = 0;
      r.last_error = null;
      if (event.fresh) r.forwards_hash = null; // a new device: no hash known yet
      break;
    case 'provision_failed':
      r.failures = record.failures + 1;
      r.last_error = event.reason;
      break;
    case 'stored_config_cleared':
      r.sealed_config = null;
      r.forwards_hash = null;
      r.last_error = event.reason;
      break;
    case 'tunnel_established':
    case 'tunnel_rebuilt':
      r.last_heartbeat_ok = null;
      r.tunnel_up = false;
      break;
    case 'heartbeat_answer':
      r.last_heartbeat = event.at;
      r.last_heartbeat_ok = true;
      r.last_error = null;
      r.tunnel_up = event.tunnelUp;
      if (event.forwardsHash !== null) r.forwards_hash = event.forwardsHash;
      if (event.sealed !== undefined) r.sealed_config = event.sealed;
      break;
    case 'heartbeat_failed':
      r.last_heartbeat_ok = false;
      r.last_error = event.reason;
      break;
    default:
      break;
  }
  return r;
}

export type Display = 'disconnected' | 'connecting' | 'connected' | 'failed';

/**
 * The display state: `connected` only while the agent runs, its last heartbeat was answered
 * and the tunnel had a recent handshake; `failed` while provisioning or heartbeats fail.
 */
export function displayOf(record: AgentRecord, running: boolean): Display {
  if (!running || record.state === 'BOOT') return 'disconnected';
  if (record.state === 'APP_RETRY') return 'failed';
  if (record.state !== 'HEARTBEAT') return 'connecting';
  if (record.last_heartbeat_ok === false) return 'failed';
  return record.last_heartbeat_ok && record.tunnel_up ? 'connected' : 'connecting';
}

/** Seconds to wait in APP_RETRY: one heartbeat interval, doubling per failure, at most ten. */
export function retryDelayS(failures: number, intervalS: number): number {
  const factor = Math.min(10, 2 ** Math.max(0, failures - 1));
  return intervalS * factor;
}
