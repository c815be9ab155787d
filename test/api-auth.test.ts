import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { runCommand as cli } from '../src/cli/main';

const t = suite('authentication');
let d: TestDaemon;
t.before(async () => { d = await startTestDaemon(); });
t.after(async () => { await d.stop(); });

async function wgcp(...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await cli(['--data-dir', d.dataDir, ...args], (s) => { out += s; });
  return { code, out };
}

t('writes the first-start key file with mode 0600 and accepts that key', async () => {
  const file = path.join(d.dataDir, 'api-key');
  assert.is(fs.statSync(file).mode & 0o777, 0o600);
  assert.is((fs.statSync(path.join(d.dataDir, 'wgcp.db')).mode & 0o777), 0o600);
  assert.is((await call(d.url, 'GET', '/api/servers', undefined, { 'wg-control-key': d.key })).status, 200);
});

t('answers missing and wrong credentials with 401 unauthorized', async () => {
  const variants: Record<string, string>[] = [{}, { 'wg-control-key': 'wrong' }, { 'wg-control-key': '' }, { Authorization: 'Bearer wrong' }, { Authorization: d.key }, { Authorization: 'Bearer ' }];
  for (const headers of variants) {
    const r = await call(d.url, 'GET', '/api/servers', undefined, headers);
    assert.is(r.status, 401, JSON.stringify(headers));
    assert.equal(r.json, { error: 'unauthorized' });
  }
});

t('lets /healthz through without credentials; with the kernel backend off it is degraded (still 200) and says why', async () => {
  const r = await call(d.url, 'GET', '/healthz');
  assert.is(r.status, 200);
  assert.is(r.json.status, 'degraded');
  assert.is(r.json.kernel, 'off');
  assert.equal(r.json.reasons, [`the kernel backend is off: changes are stored but not applied (${r.json.kernelReason})`]);
  assert.type(r.json.kernelReason, 'string');
});

t('accepts CLI-made API keys and access tokens in both header styles', async () => {
  const key = (await wgcp('apikey', 'create', '--name', 'ci'));
  assert.is(key.code, 0);
  assert.match(key.out.trim(), /^wgk_[A-Za-z0-9_-]{43}$/);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': key.out.trim() })).status, 200);
  const listed = (JSON.parse((await wgcp('apikey', 'list', '--json')).out) as { name: string; lastUsedAt: string | null }[]).find((k) => k.name === 'ci')!;
  assert.match(listed.lastUsedAt!, /^\d{4}-/);
  const token = (await wgcp('token', 'create', '--name', 'dash')).out.trim();
  assert.match(token, /^wgt_/);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { Authorization: `Bearer ${token}` })).status, 200);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { Authorization: token })).status, 200);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { authorization: `bearer ${token}` })).status, 200);
});

t('stores only hashes of keys and tokens', () => {
  const rows = d.daemon.app.store.db.prepare('SELECT hash FROM credentials').all() as { hash: string }[];
  assert.ok(rows.length >= 3);
  for (const r of rows) assert.match(r.hash, /^[0-9a-f]{64}$/);
  const db = fs.readFileSync(path.join(d.dataDir, 'wgcp.db')).toString('latin1') + fs.readFileSync(path.join(d.dataDir, 'wgcp.db-wal')).toString('latin1');
  assert.not.ok(db.includes(d.key));
});

t('refuses revoked keys and tokens at once', async () => {
  const key = (await wgcp('apikey', 'create', '--name', 'temp')).out.trim();
  const id = (JSON.parse((await wgcp('apikey', 'list', '--json')).out) as { id: number; name: string }[]).find((k) => k.name === 'temp')!.id;
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': key })).status, 200);
  assert.is((await wgcp('apikey', 'revoke', String(id))).code, 0);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': key })).status, 401);
  const token = (await wgcp('token', 'create', '--name', 'gone')).out.trim();
  const tid = (JSON.parse((await wgcp('token', 'list', '--json')).out) as { id: number; name: string }[]).find((k) => k.name === 'gone')!.id;
  assert.is((await wgcp('token', 'revoke', String(tid))).code, 0);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { Authorization: `Bearer ${token}` })).status, 401);
  assert.is((await wgcp('token', 'revoke', String(tid))).code, 2);
});

t('keeps API keys and access tokens to their own headers', async () => {
  const token = (await wgcp('token', 'create')).out.trim();
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': token })).status, 401);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { Authorization: `Bearer ${d.key}` })).status, 401);
});

t('refuses an expired access token', async () => {
  const token = (await wgcp('token', 'create', '--name', 'old', '--expires-in-days', '1')).out.trim();
  d.daemon.app.store.db.prepare("UPDATE credentials SET expires_at = '2000-01-01T00:00:00.000Z' WHERE name = 'old'").run();
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { Authorization: `Bearer ${token}` })).status, 401);
});

t('accepts WGCP_API_KEY beside the stored keys and then makes no key file', async () => {
  const { startTestDaemon: start } = await import('./helpers/daemon');
  const other = await start({ env: { WGCP_API_KEY: 'configured-key-0123456789' } });
  try {
    assert.not.ok(fs.existsSync(path.join(other.dataDir, 'api-key')));
    assert.is((await call(other.url, 'GET', '/api/stats', undefined, { 'wg-control-key': 'configured-key-0123456789' })).status, 200);
    assert.is((await call(other.url, 'GET', '/api/stats', undefined, { 'wg-control-key': 'configured-key-012345678' })).status, 401);
  } finally {
    await other.stop();
  }
});

t('CLI refuses unknown commands and bad arguments with usage', async () => {
  assert.is((await wgcp('frobnicate')).code, 2);
  assert.is((await wgcp('apikey', 'revoke', 'abc')).code, 2);
  assert.is((await wgcp('token', 'create', '--expires-in-days', 'soon')).code, 2);
});

t.run();
