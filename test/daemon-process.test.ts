// The daemon as an operator runs it: a child process with environment variables, JSON
// log lines on stdout, and a clean stop on SIGTERM.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, tempDir } from './helpers/daemon';
import { spawnDaemon } from './helpers/process';

const t = suite('wgcpd process');
const dataDir = tempDir();

t('refuses a bad configuration value with exit code 2 and names the variable', async () => {
  const err = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_USAGE_INTERVAL_S: 'often' }).then(() => null, (e) => e);
  assert.ok(err, 'the daemon did not start');
  assert.is(err.code, 2);
  assert.match(err.stderr, /WGCP_USAGE_INTERVAL_S/);
});

t('starts, makes the first key file, answers /healthz and stops cleanly on SIGTERM', async () => {
  const d = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off' });
  const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  const health = await call(d.url, 'GET', '/healthz');
  assert.is(health.status, 200);
  assert.is(health.json.status, 'degraded', 'stored, not applied: the kernel backend is off');
  assert.is(health.json.kernel, 'off');
  assert.match(health.json.reasons.join('\n'), /^the kernel backend is off: changes are stored but not applied \(WGCP_KERNEL=off/);
  const made = await call(d.url, 'POST', '/api/servers', { name: 'keep', endpoint: '127.0.0.1:51820', mode: 'forward' }, { 'wg-control-key': key });
  assert.is(made.status, 201);
  await call(d.url, 'POST', '/api/servers/1/peers', { name: 'p' }, { 'wg-control-key': key });
  await call(d.url, 'GET', '/api/peers/1/config', undefined, { 'wg-control-key': key });
  d.child.kill('SIGTERM');
  assert.is(await d.exited, 0);
  for (const line of d.lines) {
    assert.type(line.time, 'string');
    assert.type(line.level, 'string');
    assert.type(line.msg, 'string');
  }
  assert.ok(d.lines.some((l) => l.keyFile === path.join(dataDir, 'api-key')));
  assert.not.ok(d.raw().includes(key), 'the key is never logged');
});

t('keeps its data and its key across a restart on the same data folder', async () => {
  const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  const d = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off' });
  try {
    assert.is(fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim(), key);
    const servers = await call(d.url, 'GET', '/api/servers', undefined, { 'wg-control-key': key });
    assert.is(servers.status, 200);
    assert.is(servers.json.length, 1);
    assert.is(servers.json[0].name, 'keep');
    assert.is(servers.json[0].peers[0].name, 'p');
    assert.not.ok(d.lines.some((l) => l.keyFile), 'no new key is made');
  } finally {
    d.child.kill('SIGTERM');
    await d.exited;
  }
});

t('refuses a database newer than itself', async () => {
  const Database = (await import('better-sqlite3')).default;
  const dir = tempDir();
  const db = new Database(path.join(dir, 'wgcp.db'));
  db.pragma('user_version = 999');
  db.close();
  const err = await spawnDaemon({ WGCP_DATA_DIR: dir, WGCP_KERNEL: 'off' }).then(() => null, (e) => e);
  assert.ok(err);
  assert.is(err.code, 1);
});

t.run();
