import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { initialRecord, type AgentRecord } from '../src/machine';
import { ensureStateDir, loadRecord, removeLeftovers, saveRecord, STATE_FILE } from '../src/persist';
import { tempDir } from './helpers/temp-dir';

const t = suite('agent persistent state');
const dir = () => tempDir('wgcp-agent-persist-');
const sample: AgentRecord = { ...initialRecord(), state: 'HEARTBEAT', sealed_config: 'c2VhbGVk', device_id: 'd', forwards_hash: 'h', last_heartbeat: '2026-11-22T10:00:00.000Z', last_heartbeat_ok: true, tunnel_up: true };

t('gives a fresh record when nothing is stored', () => {
  const { record, problem } = loadRecord(dir());
  assert.equal(record, initialRecord());
  assert.is(problem, null);
});

t('reads back what it saved', () => {
  const d = dir();
  saveRecord(d, sample);
  assert.equal(loadRecord(d), { record: sample, problem: null });
});

t('writes the record with mode 0600 and leaves no temp file', () => {
  const d = dir();
  saveRecord(d, sample);
  assert.is(fs.statSync(path.join(d, STATE_FILE)).mode & 0o777, 0o600);
  assert.equal(fs.readdirSync(d), [STATE_FILE]);
});

t('makes the state folder private', () => {
  const d = path.join(dir(), 'nested', 'state');
  ensureStateDir(d);
  assert.is(fs.statSync(d).mode & 0o777, 0o700);
});

t('keeps mode 0600 even over a leftover temp file that was world readable', () => {
  const d = dir();
  fs.writeFileSync(path.join(d, `${STATE_FILE}.tmp-${process.pid}`), 'junk', { mode: 0o644 });
  saveRecord(d, sample);
  assert.is(fs.statSync(path.join(d, STATE_FILE)).mode & 0o777, 0o600);
});

t('keeps the old record when a cut came between the temp write and the rename', () => {
  const d = dir();
  saveRecord(d, sample);
  fs.writeFileSync(path.join(d, `${STATE_FILE}.tmp-4242`), '{"version":1,"state":"PROV');
  assert.equal(loadRecord(d).record, sample);
  removeLeftovers(d);
  assert.equal(fs.readdirSync(d), [STATE_FILE]);
});

t('starts fresh, saying why, from a record that is not JSON', () => {
  const d = dir();
  fs.writeFileSync(path.join(d, STATE_FILE), '\u0000\u0000garbage');
  const { record, problem } = loadRecord(d);
  assert.equal(record, initialRecord());
  assert.match(problem!, /unreadable/);
});

t('starts fresh from a record with a wrong field or an unknown state', () => {
  const d = dir();
  fs.writeFileSync(path.join(d, STATE_FILE), JSON.stringify({ ...sample, state: 'DANCING' }));
  assert.match(loadRecord(d).problem!, /wrong type/);
  fs.writeFileSync(path.join(d, STATE_FILE), JSON.stringify({ ...sample, failures: -1 }));
  assert.equal(loadRecord(d).record, initialRecord());
});

t('drops unknown fields of a stored record', () => {
  const d = dir();
  fs.writeFileSync(path.join(d, STATE_FILE), JSON.stringify({ ...sample, extra: 1 }));
  assert.equal(loadRecord(d).record, sample);
});

t('always leaves a whole record when the writer is killed at random instants', async () => {
  const d = dir();
  const writer = `
    const { saveRecord } = require(${JSON.stringify(path.join(__dirname, '..', 'src', 'persist.js'))});
    const { initialRecord } = require(${JSON.stringify(path.join(__dirname, '..', 'src', 'machine.js'))});
    for (let n = 1; ; n++) saveRecord(process.argv[1], { ...initialRecord(), state: 'HEARTBEAT', failures: n, last_error: 'x'.repeat(n % 5000) });
  `;
  let lastSeen = 0;
  for (let round = 0; round < 8; round++) {
    const child = spawn(process.execPath, ['-e', writer, d], { stdio: 'ignore' });
    while (!fs.existsSync(path.join(d, STATE_FILE))) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, Math.random() * 100));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const { record, problem } = loadRecord(d);
    assert.is(problem, null, `round ${round}`);
    assert.is(record.state, 'HEARTBEAT');
    assert.is(record.last_error!.length, record.failures % 5000);
    lastSeen = record.failures;
  }
  assert.ok(lastSeen > 0);
});

t.run();
