import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { displayOf, initialRecord, nextState, reduce, retryDelayS, STATES, type AgentRecord, type Event, type State } from '../src/machine';

const t = suite('agent state machine');
const at = '2026-11-22T10:00:00.000Z';
const ev = {
  start: { type: 'start' },
  config_loaded: { type: 'config_loaded' },
  provisioned: { type: 'provisioned', fresh: true, sealed: 'SEALED', deviceId: 'dev-1' },
  provision_failed: { type: 'provision_failed', reason: 'HTTP 500' },
  stored_config_cleared: { type: 'stored_config_cleared', reason: 'bad tag' },
  retry: { type: 'retry' },
  tunnel_established: { type: 'tunnel_established' },
  same: { type: 'heartbeat_answer', at, tunnelUp: true, forwardsHash: 'h1', rebuild: false },
  changed: { type: 'heartbeat_answer', at, tunnelUp: true, forwardsHash: 'h2', rebuild: true },
  heartbeat_failed: { type: 'heartbeat_failed', at, reason: 'connect timeout' },
  tunnel_rebuilt: { type: 'tunnel_rebuilt' },
} satisfies Record<string, Event>;

const rec = (state: State, extra: Partial<AgentRecord> = {}): AgentRecord => ({ ...initialRecord(), state, ...extra });

t('follows every row of the contract table', () => {
  const rows: [State, Event, State][] = [
    ['BOOT', ev.start, 'APP_INIT'],
    ['APP_INIT', ev.config_loaded, 'PROVISION'],
    ['PROVISION', ev.provisioned, 'TUNNEL_UP'],
    ['PROVISION', ev.provision_failed, 'APP_RETRY'],
    ['APP_RETRY', ev.retry, 'APP_INIT'],
    ['TUNNEL_UP', ev.tunnel_established, 'HEARTBEAT'],
    ['HEARTBEAT', ev.changed, 'TUNNEL_REBUILD'],
    ['TUNNEL_REBUILD', ev.tunnel_rebuilt, 'HEARTBEAT'],
  ];
  for (const [from, event, to] of rows) assert.is(nextState(from, event), to, `${from} + ${event.type}`);
});

t('keeps HEARTBEAT on an unchanged answer and on a failed heartbeat (the loop goes on)', () => {
  assert.is(nextState('HEARTBEAT', ev.same), 'HEARTBEAT');
  assert.is(nextState('HEARTBEAT', ev.heartbeat_failed), 'HEARTBEAT');
});

t('stays in PROVISION when the stored configuration is cleared, to provision afresh', () => {
  assert.is(nextState('PROVISION', ev.stored_config_cleared), 'PROVISION');
});

t('refuses every event the table has no row for', () => {
  const allowed = new Set(['BOOT:start', 'APP_INIT:config_loaded', 'PROVISION:provisioned', 'PROVISION:provision_failed',
    'PROVISION:stored_config_cleared', 'APP_RETRY:retry', 'TUNNEL_UP:tunnel_established', 'HEARTBEAT:heartbeat_answer',
    'HEARTBEAT:heartbeat_failed', 'TUNNEL_REBUILD:tunnel_rebuilt']);
  let refused = 0;
  for (const s of STATES) {
    for (const e of Object.values(ev) as Event[]) {
      if (allowed.has(`${s}:${e.type}`)) continue;
      assert.throws(() => nextState(s, e), /not allowed/);
      refused++;
    }
  }
  assert.ok(refused > 50);
});

t('has exactly the seven states of the contract', () => {
  assert.equal([...STATES].sort(), ['APP_INIT', 'APP_RETRY', 'BOOT', 'HEARTBEAT', 'PROVISION', 'TUNNEL_REBUILD', 'TUNNEL_UP']);
});

t('stores the sealed configuration and device id on provisioning and resets failures', () => {
  const r = reduce(rec('PROVISION', { failures: 3, last_error: 'x', forwards_hash: 'old' }), ev.provisioned);
  assert.equal([r.state, r.sealed_config, r.device_id, r.failures, r.last_error, r.forwards_hash], ['TUNNEL_UP', 'SEALED', 'dev-1', 0, null, null]);
});

t('keeps the stored hash when provisioning from the stored configuration', () => {
  const r = reduce(rec('PROVISION', { forwards_hash: 'h1' }), { ...ev.provisioned, fresh: false });
  assert.is(r.forwards_hash, 'h1');
});

t('counts provisioning failures for the back-off', () => {
  const r = reduce(reduce(rec('PROVISION'), ev.provision_failed), ev.retry);
  assert.is(r.failures, 1);
  assert.is(r.state, 'APP_INIT');
  assert.is(r.last_error, 'HTTP 500');
});

t('drops the sealed configuration and hash when it is cleared', () => {
  const r = reduce(rec('PROVISION', { sealed_config: 'S', forwards_hash: 'h' }), ev.stored_config_cleared);
  assert.is(r.sealed_config, null);
  assert.is(r.forwards_hash, null);
});

t('records heartbeat answers, new hashes and a new sealed configuration', () => {
  let r = reduce(rec('HEARTBEAT', { sealed_config: 'S1' }), ev.same);
  assert.equal([r.last_heartbeat, r.last_heartbeat_ok, r.forwards_hash, r.sealed_config, r.tunnel_up], [at, true, 'h1', 'S1', true]);
  r = reduce(r, { ...ev.changed, sealed: 'S2' });
  assert.equal([r.state, r.forwards_hash, r.sealed_config], ['TUNNEL_REBUILD', 'h2', 'S2']);
});

t('keeps the stored hash when an answer carries none', () => {
  const r = reduce(rec('HEARTBEAT', { forwards_hash: 'h1' }), { ...ev.same, forwardsHash: null });
  assert.is(r.forwards_hash, 'h1');
});

t('marks a failed heartbeat without losing the last good one', () => {
  const r = reduce(rec('HEARTBEAT', { last_heartbeat: at, last_heartbeat_ok: true }), ev.heartbeat_failed);
  assert.equal([r.last_heartbeat, r.last_heartbeat_ok, r.last_error], [at, false, 'connect timeout']);
});

t('derives the display state', () => {
  assert.is(displayOf(rec('HEARTBEAT', { last_heartbeat_ok: true, tunnel_up: true }), false), 'disconnected');
  assert.is(displayOf(rec('BOOT'), true), 'disconnected');
  for (const s of ['APP_INIT', 'PROVISION', 'TUNNEL_UP', 'TUNNEL_REBUILD'] as State[]) assert.is(displayOf(rec(s), true), 'connecting', s);
  assert.is(displayOf(rec('APP_RETRY'), true), 'failed');
  assert.is(displayOf(rec('HEARTBEAT'), true), 'connecting');
  assert.is(displayOf(rec('HEARTBEAT', { last_heartbeat_ok: true, tunnel_up: false }), true), 'connecting');
  assert.is(displayOf(rec('HEARTBEAT', { last_heartbeat_ok: true, tunnel_up: true }), true), 'connected');
  assert.is(displayOf(rec('HEARTBEAT', { last_heartbeat_ok: false, tunnel_up: true }), true), 'failed');
});

t('a new tunnel is connecting until its first heartbeat is answered', () => {
  const r = reduce(rec('TUNNEL_REBUILD', { last_heartbeat_ok: true, tunnel_up: true }), ev.tunnel_rebuilt);
  assert.is(displayOf(r, true), 'connecting');
});

t('backs off APP_RETRY from one interval, doubling, to at most ten', () => {
  assert.equal([0, 1, 2, 3, 4, 5, 50].map((n) => retryDelayS(n, 30)), [30, 30, 60, 120, 240, 300, 300]);
});

t.run();
