// Bandwidth limits through the API on the real daemon (kernel off): the fields as stored and
// answered, refusals naming the field with nothing applied, /metrics, the OpenAPI document,
// and a backup restored into a new data folder keeping them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';

const t = suite('bandwidth limits through the API, metrics and backup');
const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');

let d: TestDaemon;
let api: ReturnType<typeof client>;
let sid: number;

t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
  sid = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.52.0.1/24' })).json.id;
});
t.after(async () => { await d.stop(); });

t('a new peer has no limits; limits with decimals are taken on create and update, null lifts one, leaving one out keeps it', async () => {
  const plain = await api.post(`/api/servers/${sid}/peers`, { name: 'plain' });
  assert.is(plain.status, 201);
  assert.is(plain.json.downloadLimitMbps, null);
  assert.is(plain.json.uploadLimitMbps, null);
  const r = await api.post(`/api/servers/${sid}/peers`, { name: 'slow', downloadLimitMbps: 2.5, uploadLimitMbps: 0.1 });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.downloadLimitMbps, 2.5);
  assert.is(r.json.uploadLimitMbps, 0.1);
  const id = r.json.id;
  assert.is((await api.put(`/api/peers/${id}`, { uploadLimitMbps: 10000 })).json.uploadLimitMbps, 10000);
  const got = (await api.get(`/api/peers/${id}`)).json;
  assert.is(got.downloadLimitMbps, 2.5);
  assert.is(got.uploadLimitMbps, 10000);
  const lifted = (await api.put(`/api/peers/${id}`, { downloadLimitMbps: null })).json;
  assert.is(lifted.downloadLimitMbps, null);
  assert.is(lifted.uploadLimitMbps, 10000);
});

t('a limit below 0.1, above 10000, or not a number is a 400 naming the field, and nothing of the body is applied', async () => {
  const id = (await api.post(`/api/servers/${sid}/peers`, { name: 'kept', downloadLimitMbps: 5 })).json.id;
  for (const [field, value] of [['downloadLimitMbps', 0.09], ['downloadLimitMbps', 10000.5], ['uploadLimitMbps', '5'], ['uploadLimitMbps', 0], ['downloadLimitMbps', true]] as const) {
    const r = await api.put(`/api/peers/${id}`, { name: 'changed', [field]: value });
    assert.is(r.status, 400, `${field}=${JSON.stringify(value)}: ${r.text}`);
    assert.match(r.json.error, field);
  }
  const bad = await api.post(`/api/servers/${sid}/peers`, { name: 'never', uploadLimitMbps: -3 });
  assert.is(bad.status, 400);
  assert.match(bad.json.error, 'uploadLimitMbps');
  const p = (await api.get(`/api/peers/${id}`)).json;
  assert.is(p.name, 'kept');
  assert.is(p.downloadLimitMbps, 5);
  const names = ((await api.get(`/api/servers/${sid}/peers`)).json as { name: string }[]).map((x) => x.name);
  assert.not.ok(names.includes('never'));
});

t('/metrics shows each limit in bits per second, and nothing for a peer without one', async () => {
  const id = (await api.post(`/api/servers/${sid}/peers`, { name: 'metered', downloadLimitMbps: 12.5 })).json.id;
  const r = await call(d.url, 'GET', '/metrics', undefined, { 'wg-control-key': d.key });
  assert.is(r.status, 200, r.text);
  const down = r.text.split('\n').filter((l) => l.startsWith('wgcp_peer_download_limit_bps{'));
  const mine = down.filter((l) => l.includes(`peer="${id}"`));
  assert.is(mine.length, 1, down.join('\n'));
  assert.match(mine[0], / 12500000$/);
  assert.not.ok(r.text.split('\n').some((l) => l.startsWith('wgcp_peer_upload_limit_bps{') && l.includes(`peer="${id}"`)));
  assert.match(r.text, '# TYPE wgcp_peer_upload_limit_bps gauge');
});

t('the OpenAPI document describes both fields', async () => {
  const doc = (await api.get('/api/openapi.json')).json;
  const props = doc.components.schemas.Peer.properties;
  assert.equal(props.downloadLimitMbps.type, ['number', 'null']);
  assert.is(props.uploadLimitMbps.maximum, 10000);
});

t('a backup restored into a new data folder keeps the limits', async () => {
  const id = (await api.post(`/api/servers/${sid}/peers`, { name: 'carried', downloadLimitMbps: 7.25, uploadLimitMbps: 3 })).json.id;
  const backup = await call(d.url, 'GET', '/api/backup', undefined, { 'wg-control-key': d.key });
  assert.is(backup.status, 200);
  const file = path.join(tempDir('wgcp-shaping-backup-'), 'b.db');
  fs.writeFileSync(file, backup.bytes);
  const dataDir = tempDir('wgcp-shaping-restored-');
  await run(process.execPath, [CLI, '--data-dir', dataDir, 'restore', file]);
  const restored = await startTestDaemon({ dataDir });
  try {
    const p = (await client(restored).get(`/api/peers/${id}`)).json;
    assert.is(p.downloadLimitMbps, 7.25);
    assert.is(p.uploadLimitMbps, 3);
  } finally {
    await restored.stop();
  }
});

t.run();
