import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { statusConfig } from '../src/config';
import { PID_FILE } from '../src/lock';
import { initialRecord, type AgentRecord } from '../src/machine';
import { saveRecord, STATE_FILE } from '../src/persist';
import { statusReport } from '../src/status';
import { serveStatus, STATUS_SOCKET } from '../src/status-socket';
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

t('a stopped agent is STOPPED and disconnected, with the device and the last heartbeat its record kept; no key', async () => {
  const d = dir();
  saveRecord(d, connected);
  assert.equal(await statusReport(d), { running: false, state: 'STOPPED', display: 'disconnected', device_id: 'dev-1', last_heartbeat: '2026-11-22T10:00:00.000Z' });
});

t('a pid file naming no live agent is a stopped agent, whatever the record says', async () => {
  const d = dir();
  saveRecord(d, connected);
  fs.writeFileSync(path.join(d, PID_FILE), '999999999\n');
  assert.equal([(await statusReport(d)).state, (await statusReport(d)).display], ['STOPPED', 'disconnected']);
});

t('a never-started agent is STOPPED, with nothing known', async () => {
  assert.equal(await statusReport(dir()), { running: false, state: 'STOPPED', display: 'disconnected', device_id: null, last_heartbeat: null });
});

t('a running agent is asked through its socket: its last heartbeat as it holds it, newer than the record on disk', async () => {
  const d = dir();
  saveRecord(d, connected);
  fs.writeFileSync(path.join(d, PID_FILE), `${fakeAgent.pid}\n`);
  const live = { ...connected, last_heartbeat: '2026-11-22T10:59:30.000Z' };
  const server = await serveStatus(d, () => live);
  try {
    assert.is((fs.statSync(path.join(d, STATUS_SOCKET)).mode & 0o777).toString(8), '600');
    assert.equal(await statusReport(d), { running: true, state: 'HEARTBEAT', display: 'connected', device_id: 'dev-1', last_heartbeat: '2026-11-22T10:59:30.000Z' });
  } finally {
    await server.close();
  }
  assert.not.ok(fs.existsSync(path.join(d, STATUS_SOCKET)), 'the socket goes with the agent');
});

t('a running agent whose socket does not answer yet: the record, connected once the agent has written it', async () => {
  const d = dir();
  fs.writeFileSync(path.join(d, PID_FILE), `${fakeAgent.pid}\n`);
  saveRecord(d, connected);
  setTime(path.join(d, PID_FILE), Date.now() - 10_000);
  assert.is((await statusReport(d)).display, 'connected');
});

t('says BOOT while a just-started agent has not yet written over the previous run', async () => {
  const d = dir();
  saveRecord(d, connected);
  setTime(path.join(d, STATE_FILE), Date.now() - 10_000);
  fs.writeFileSync(path.join(d, PID_FILE), `${fakeAgent.pid}\n`);
  assert.equal(await statusReport(d), { running: true, state: 'BOOT', display: 'disconnected', device_id: 'dev-1', last_heartbeat: '2026-11-22T10:00:00.000Z' });
});

t('status reads the state folder from a configuration whose ca_file is unreadable, and names that problem', () => {
  const d = dir();
  const file = path.join(d, 'agent.json');
  fs.writeFileSync(file, JSON.stringify({ server_url: 'https://vpn.example.com:8443', token: 't', server_salt: 's', hwid: 'board-1', state_dir: path.join(d, 'state'), ca_file: path.join(d, 'gone.pem') }));
  const { stateDir, problem } = statusConfig(file);
  assert.is(stateDir, path.join(d, 'state'));
  assert.is(problem, `${file}: "ca_file": cannot read ${path.join(d, 'gone.pem')}: ENOENT`);
});

t.run();
