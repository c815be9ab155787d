// A restore is applied when asked, or never: a `wgcp restore` killed after it staged its
// checked copy leaves that copy in the data folder, and no later SIGHUP (an import's, days
// later) or start of wgcpd may apply it behind the operator's back.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, tempDir } from './helpers/daemon';
import { spawnDaemon, type DaemonProcess } from './helpers/process';
import { eventually } from './helpers/receiver';
import { reloadDaemon } from '../src/backup/daemon-reload';
import { PENDING_FILE } from '../src/ops/restore';

const t = suite('a staged restore whose wgcp restore was killed is never applied');

const RESTORE_JS = path.join(__dirname, '../src/ops/restore.js');
const dataDir = tempDir();
const backupFile = path.join(tempDir(), 'before.db');
let d: DaemonProcess;
let key: string;

/** The daemon's URL as it last logged it (a reload listens on a new port 0). */
const url = () => `http://127.0.0.1:${d.lines.filter((l) => l.msg === 'wgcpd is listening').at(-1)!.port}`;
const api = (method: string, p: string, body?: unknown) => call(url(), method, p, body, { 'wg-control-key': key });
const serverNames = async () => ((await api('GET', '/api/servers')).json as { name: string }[]).map((s) => s.name).sort();
const staged = () => fs.existsSync(path.join(dataDir, PENDING_FILE));

/** What `wgcp restore` does first (check and stage the file), in a process then SIGKILLed before it asks for anything. */
async function stageAndKill(): Promise<void> {
  const script = `require(${JSON.stringify(RESTORE_JS)}).stageRestore(${JSON.stringify(dataDir)}, ${JSON.stringify(backupFile)}, null)
    .then(() => { process.stdout.write('staged\\n'); setInterval(() => {}, 1000); }, (e) => { console.error(e); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => { if (String(c).includes('staged')) resolve(); });
    child.once('exit', (code) => reject(new Error(`the staging process exited with ${code}`)));
  });
  child.kill('SIGKILL');
  await exited;
}

t.before(async () => {
  d = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off' });
  key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  assert.is((await api('POST', '/api/servers', { name: 'old', endpoint: '127.0.0.1:51820', mode: 'forward' })).status, 201);
  const backup = await api('GET', '/api/backup');
  assert.is(backup.status, 200);
  fs.writeFileSync(backupFile, backup.bytes);
  // Made after the backup: a restore of it would remove this server.
  assert.is((await api('POST', '/api/servers', { name: 'new', endpoint: '127.0.0.1:51821', mode: 'forward' })).status, 201);
});

t.after(async () => {
  if (d.child.exitCode === null) d.child.kill('SIGTERM');
  await d.exited;
});

t('a later SIGHUP discards the abandoned copy, says so, and leaves the database as it was', async () => {
  await stageAndKill();
  assert.ok(staged(), 'the killed command left its staged copy');
  assert.is(await reloadDaemon(dataDir, d.child.pid!), 'reloaded');
  assert.equal(await serverNames(), ['new', 'old'], 'the backup was not restored');
  assert.not.ok(staged(), 'the copy is gone: no later SIGHUP can apply it either');
  await eventually('the log line', () => d.lines.find((l) => l.msg.startsWith('a staged restore was discarded')));
});

t('the next start discards it too', async () => {
  await stageAndKill();
  d.child.kill('SIGTERM');
  assert.is(await d.exited, 0);
  d = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off' });
  assert.not.ok(staged());
  assert.ok(d.lines.some((l) => l.msg.startsWith('a staged restore was discarded')));
  assert.equal(await serverNames(), ['new', 'old']);
});

t('POST /api/restore does not apply an abandoned copy: 409, nothing staged', async () => {
  await stageAndKill();
  const r = await api('POST', '/api/restore');
  assert.is(r.status, 409, r.text);
  assert.match(r.json.error, /no restore is staged/);
  assert.equal(await serverNames(), ['new', 'old']);
  assert.not.ok(staged());
});

t.run();
