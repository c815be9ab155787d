// Access schedules in a backup: the real CLI backs up a running daemon, restores into an
// empty data folder, and the restored daemon shows the schedule and keeps applying it. (An
// older backup is migrated as every backup is: the column comes with NULL, no schedule.)
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir } from './helpers/daemon';

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

t.run();
