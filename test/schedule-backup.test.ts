// Access schedules in a backup: the real CLI backs up a running daemon, restores into an
// empty data folder, and the restored daemon shows the schedule and keeps applying it. (An
// older backup is migrated as every backup is: the column comes with NULL, no schedule.)
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { client, startTestDaemon, tempDir } from './helpers/daemon';
import { stageRestore } from '../src/ops/restore';

const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const wgcp = (dataDir: string, ...args: string[]) => run(process.execPath, [CLI, '--data-dir', dataDir, ...args]);
const t = suite('access schedules survive a backup and its restore');

/** A window that is closed now and for the next hours: two hours ahead, one hour long, every day. */
function closedNow() {
  const h = (new Date().getUTCHours() + 2) % 24;
  const hh = (n: number) => `${String(n % 24).padStart(2, '0')}:00`;
  return { timezone: 'UTC', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: hh(h), to: hh(h + 1) }] };
}

t('a restored daemon holds the schedule, and the peer it keeps off stays off', async () => {
  const src = await startTestDaemon();
  const api = client(src);
  const schedule = closedNow();
  let id = 0;
  try {
    const s = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json;
    const p = await api.post(`/api/servers/${s.id}/peers`, { name: 'timed', schedule });
    assert.is(p.status, 201, p.text);
    assert.equal(p.json.disabledReasons, ['schedule']);
    id = p.json.id;
    const file = path.join(tempDir('wgcp-sched-backup-'), 'b.db');
    await wgcp(src.dataDir, 'backup', '--out', file);
    // The schedule is in the file as the API shows it.
    const db = new Database(file, { readonly: true });
    assert.equal(JSON.parse(db.prepare('SELECT schedule FROM peers WHERE id = ?').pluck().get(id) as string), schedule);
    db.close();
    const target = tempDir('wgcp-sched-restored-');
    await wgcp(target, 'restore', file);
    const restored = await startTestDaemon({ dataDir: target });
    try {
      const shown = (await client(restored).get(`/api/peers/${id}`)).json;
      assert.equal(shown.schedule, schedule);
      assert.equal(shown.disabledReasons, ['schedule']);
      assert.is(shown.enabled, false);
    } finally {
      await restored.stop();
    }
  } finally {
    await src.stop();
  }
});

t('a restore into the running daemon reads the schedules again: a peer the backup had on while its window is closed goes off', async () => {
  const d = await startTestDaemon();
  const api = client(d);
  try {
    const s = (await api.post('/api/servers', { name: 'live', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json;
    const p = (await api.post(`/api/servers/${s.id}/peers`, { name: 'restored-timed', schedule: closedNow() })).json;
    assert.equal(p.disabledReasons, ['schedule']);
    const backup = await api.get('/api/backup');
    assert.is(backup.status, 200);
    const file = path.join(tempDir('wgcp-sched-live-'), 'router.db');
    fs.writeFileSync(file, backup.bytes);
    // As if the backup was taken while the window was open: on, no reason, the same schedule.
    const db = new Database(file);
    db.prepare("UPDATE peers SET enabled = 1, disabled_reasons = '' WHERE id = ?").run(p.id);
    db.close();
    // And the peer gone from the running daemon since, so that the restore brings it back.
    assert.is((await api.del(`/api/peers/${p.id}`)).status, 204);
    await stageRestore(d.dataDir, file, null);
    const r = await api.post('/api/restore', {});
    assert.is(r.status, 200, r.text);
    // The scheduler reads the restored schedules and puts the peer off by itself.
    const deadline = Date.now() + 10_000;
    let shown = (await api.get(`/api/peers/${p.id}`)).json;
    while (shown.enabled && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 50));
      shown = (await api.get(`/api/peers/${p.id}`)).json;
    }
    assert.equal(shown.disabledReasons, ['schedule']);
    assert.equal(shown.schedule, closedNow());
  } finally {
    await d.stop();
  }
});

t.run();
