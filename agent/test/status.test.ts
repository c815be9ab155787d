import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PID_FILE } from '../src/lock';
import { initialRecord, type AgentRecord } from '../src/machine';
import { saveRecord, STATE_FILE } from '../src/persist';
import { statusReport } from '../src/status';
import { tempDir } from './helpers/temp-dir';

const t = suite('agent status report');
const connected: AgentRecord = { ...initialRecord(), state: 'HEARTBEAT', sealed_config: 'c2VhbGVk', device_id: 'dev-1', forwards_hash: 'h', last_heartbeat: '2026-11-22T10:00:00.000Z', last_heartbeat_ok: true, tunnel_up: true };
let fakeAgent: ChildProcess;

t.before(() => {
  // Any process whose command line names wgcp-agent counts as a running agent.
  fakeAgent = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', 'wgcp-agent'], { stdio: 'ignore' });
});
t.after(() => { fakeAgent.kill('SIGKILL'); });

const dir = () => tempDir('wgcp-agent-status-');
const setTime = (file: string, ms: number) => fs.utimesSync(file, ms / 1000, ms / 1000);

t('shows exactly state, display, device_id and last_heartbeat', () => {
  const d = dir();
  saveRecord(d, connected);
  assert.equal(statusReport(d), { state: 'HEARTBEAT', display: 'disconnected', device_id: 'dev-1', last_heartbeat: '2026-11-22T10:00:00.000Z' });
});

t('is disconnected when no agent runs, whatever the record says', () => {
  const d = dir();
  saveRecord(d, connected);
  fs.writeFileSync(path.join(d, PID_FILE), '999999999\n');
  assert.is(statusReport(d).display, 'disconnected');
});

t('is connected while a running agent has written the record', () => {
  const d = dir();
  fs.writeFileSync(path.join(d, PID_FILE), `${fakeAgent.pid}\n`);
  saveRecord(d, connected);
  setTime(path.join(d, PID_FILE), Date.now() - 10_000);
  assert.is(statusReport(d).display, 'connected');
});

t('says BOOT while a just-started agent has not yet written over the previous run', () => {
  const d = dir();
  saveRecord(d, connected);
  setTime(path.join(d, STATE_FILE), Date.now() - 10_000);
  fs.writeFileSync(path.join(d, PID_FILE), `${fakeAgent.pid}\n`);
  assert.equal(statusReport(d), { state: 'BOOT', display: 'disconnected', device_id: 'dev-1', last_heartbeat: '2026-11-22T10:00:00.000Z' });
});

t.run();
