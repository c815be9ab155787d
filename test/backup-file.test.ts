// Backup and restore on real SQLite files with the real CLI beside a running daemon: what a
// restored daemon answers, encryption, the files that are refused (and change nothing),
// schema versions, the kept database, and GET /api/backup.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MIGRATIONS } from '../src/store/migrations';
import { generateKeyPair } from '../src/wg/keys';
import { call, client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';

const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const t = suite('backup and restore: files, encryption, refusals, schema versions, GET /api/backup');

interface CliResult { code: number; stdout: string; stderr: string }
const wgcp = (dataDir: string, ...args: string[]): Promise<CliResult> =>
  run(process.execPath, [CLI, '--data-dir', dataDir, ...args]).then((r) => ({ code: 0, ...r }), (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }));

let src: TestDaemon;
let api: ReturnType<typeof client>;
const dir = tempDir('wgcp-backup-');
const PASS = path.join(dir, 'passphrase');
fs.writeFileSync(PASS, 'correct horse battery staple\n', { mode: 0o600 });

/** What a daemon answers about its whole state (lists that do not move by themselves). */
async function answers(d: Pick<TestDaemon, 'url' | 'key'>): Promise<string> {
  const c = client(d);
  const out: Record<string, unknown> = {};
  for (const p of ['/api/servers', '/api/stats', '/api/settings/smtp', '/api/devices']) {
    const r = await c.get(p);
    assert.is(r.status, 200, `${p}: ${r.text}`);
    out[p] = r.json;
  }
  const servers = out['/api/servers'] as { id: number }[];
  for (const s of servers) out[`tokens ${s.id}`] = (await c.get(`/api/servers/${s.id}/tokens`)).json;
  return JSON.stringify(out, null, 1);
}

/** Every file of a folder with the SHA-256 of its bytes: "nothing changed" is this, equal. */
function folderState(d: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(d).sort().map((f) => [f, crypto.createHash('sha256').update(fs.readFileSync(path.join(d, f))).digest('hex')]));
}

async function restoredDaemon(file: string, ...extra: string[]): Promise<TestDaemon> {
  const dataDir = tempDir('wgcp-restored-');
  const r = await wgcp(dataDir, 'restore', file, ...extra);
  assert.is(r.code, 0, r.stderr);
  return startTestDaemon({ dataDir });
}

t.before(async () => {
  src = await startTestDaemon();
  api = client(src);
  const s = (await api.post('/api/servers', { name: 'office', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.91.0.1/24' })).json;
  const a = (await api.post(`/api/servers/${s.id}/peers`, { name: 'a', email: 'a@example.com', allowInternet: true, dataLimitGB: 5 })).json;
  await api.post(`/api/servers/${s.id}/peers`, { name: 'b', allowAccess: [a.id], expiresAt: '2031-01-01T00:00:00.000Z' });
  await api.post(`/api/servers/${s.id}/peers`, { name: 'c', enabled: false });
  await api.post(`/api/servers/${s.id}/webhooks`, { name: 'hook', url: 'https://hooks.example.com/x', secret: 'shh' });
  await api.post('/api/settings/smtp', { enabled: true, server: 'smtp.example.com', port: 587, useAuth: true, username: 'u', password: 'p4ss', fromEmail: 'wgcp@example.com', fromName: 'wgcp' });
  await api.post(`/api/servers/${s.id}/tokens`, {});
  await api.post('/api/servers', { name: 'lab', endpoint: 'lab.example.com:51821', mode: 'standalone', address: '10.92.0.1/24', address6: null });
});
t.after(async () => { await src.stop(); });

t('wgcp backup writes a SQLite file of mode 0600 beside the running daemon, and says it holds secrets', async () => {
  const file = path.join(dir, 'plain.db');
  const r = await wgcp(src.dataDir, 'backup', '--out', file);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /wrote .*plain\.db \(\d+ bytes, not encrypted\)/);
  assert.match(r.stdout, /holds every private key and secret/);
  assert.is(fs.statSync(file).mode & 0o777, 0o600);
  assert.is(fs.readFileSync(file).subarray(0, 16).toString('latin1'), 'SQLite format 3\0');
  assert.equal(fs.readdirSync(src.dataDir).filter((f) => f.endsWith('.tmp')), [], 'no temporary copy is left');
});

t('a restore into an empty data folder makes a daemon that answers exactly what the source answered', async () => {
  const expected = await answers(src);
  const file = path.join(dir, 'same.db');
  assert.is((await wgcp(src.dataDir, 'backup', '--out', file)).code, 0);
  const restored = await restoredDaemon(file);
  try {
    assert.is(await answers(restored), expected);
    // The state files came along: the same device salt, and the first API key works (restored.key is read from it).
    assert.is(fs.readFileSync(path.join(restored.dataDir, 'server-salt'), 'utf8'), fs.readFileSync(path.join(src.dataDir, 'server-salt'), 'utf8'));
    assert.is(restored.key, src.key);
  } finally {
    await restored.stop();
  }
});

t('encrypted round trip: the file shows nothing in clear, and the same passphrase restores the same answers', async () => {
  const expected = await answers(src);
  const file = path.join(dir, 'secret.wgcpenc');
  const r = await wgcp(src.dataDir, 'backup', '--out', file, '--passphrase-file', PASS);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /encrypted with scrypt \+ AES-256-GCM/);
  const bytes = fs.readFileSync(file);
  assert.is(bytes.subarray(0, 8).toString('latin1'), 'WGCPENC1');
  const header = JSON.parse(bytes.subarray(10, 10 + bytes.readUInt16BE(8)).toString('utf8'));
  assert.equal([header.kdf, header.cipher, header.n, header.r, header.p], ['scrypt', 'aes-256-gcm', 32768, 8, 1]);
  assert.not.ok(bytes.includes(Buffer.from('SQLite format 3')) || bytes.includes(Buffer.from('smtp.example.com')) || bytes.includes(Buffer.from(src.key)));
  const restored = await restoredDaemon(file, '--passphrase-file', PASS);
  try {
    assert.is(await answers(restored), expected);
  } finally {
    await restored.stop();
  }
});

t('wrong passphrase, no passphrase, truncated, corrupted and foreign files: exit 2, a clear message, nothing changed', async () => {
  const target = tempDir('wgcp-target-');
  const plain = path.join(dir, 'good.db');
  const enc = path.join(dir, 'good.wgcpenc');
  assert.is((await wgcp(src.dataDir, 'backup', '--out', plain)).code, 0);
  assert.is((await wgcp(src.dataDir, 'backup', '--out', enc, '--passphrase-file', PASS)).code, 0);
  assert.is((await wgcp(target, 'restore', plain)).code, 0);
  const write = (name: string, bytes: Buffer) => { const f = path.join(dir, name); fs.writeFileSync(f, bytes); return f; };
  const plainBytes = fs.readFileSync(plain);
  const encBytes = fs.readFileSync(enc);
  const flipped = Buffer.from(encBytes);
  flipped[Math.floor(flipped.length / 2)] ^= 0x40;
  const damaged = Buffer.from(plainBytes);
  crypto.randomFillSync(damaged, 4096 * 2, 4096 * 3);
  const foreign = path.join(dir, 'foreign.db');
  const db = new Database(foreign);
  db.exec("CREATE TABLE clients_table (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO clients_table (name) VALUES ('x')");
  db.close();
  const wrongPass = path.join(dir, 'wrong');
  fs.writeFileSync(wrongPass, 'not the passphrase\n');
  const cases: [string, string[], RegExp][] = [
    ['wrong passphrase', [enc, '--passphrase-file', wrongPass], /refused: wrong passphrase/],
    ['no passphrase', [enc], /refused: the backup is encrypted: give its passphrase with --passphrase-file/],
    ['truncated plain', [write('cut.db', plainBytes.subarray(0, plainBytes.length - 5000))], /refused: the backup is truncated: \d+ bytes where its SQLite header announces \d+/],
    ['truncated encrypted', [write('cut.wgcpenc', encBytes.subarray(0, encBytes.length - 100)), '--passphrase-file', PASS], /refused: the encrypted backup is truncated/],
    ['corrupted encrypted', [write('flip.wgcpenc', flipped), '--passphrase-file', PASS], /refused: the encrypted backup is corrupted: its contents fail the AES-GCM authentication/],
    ['corrupted plain', [write('damaged.db', damaged)], /refused: the backup is corrupted/],
    ['another SQLite database', [foreign], /refused: not a wgcp backup: the SQLite database has no wgcp servers and peers tables/],
    ['a text file', [write('notes.txt', Buffer.from('hello\n'))], /refused: not a wgcp backup: the file is neither/],
    ['an empty file', [write('empty.db', Buffer.alloc(0))], /refused: not a wgcp backup: the file is empty/],
    ['a missing file', [path.join(dir, 'nope.db')], /refused: cannot read .*nope\.db: ENOENT/],
  ];
  const before = folderState(target);
  for (const [what, args, message] of cases) {
    const r = await wgcp(target, 'restore', ...args);
    assert.is(r.code, 2, `${what}: exit ${r.code} ${r.stderr}`);
    assert.match(r.stderr, message, what);
    assert.equal(folderState(target), before, `${what}: the data folder is as it was`);
  }
});

t('a schema newer than this wgcp is refused; an older one is migrated as a start would, IPv6 addresses included', async () => {
  const newer = path.join(dir, 'newer.db');
  fs.copyFileSync(path.join(dir, 'good.db'), newer);
  const db = new Database(newer);
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  const target = tempDir('wgcp-target-');
  const r = await wgcp(target, 'restore', newer);
  assert.is(r.code, 2);
  assert.match(r.stderr, new RegExp(`schema version ${MIGRATIONS.length + 1} is newer than this wgcp's \\(${MIGRATIONS.length}\\): upgrade wgcp first`));
  assert.equal(fs.readdirSync(target), []);
  // A database as wgcp wrote it before IPv6 (the migrations up to and without the IPv6 one).
  const before6 = MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN address6'));
  assert.ok(before6 > 0);
  const older = path.join(dir, 'older.db');
  const o = new Database(older);
  const oldKeys = generateKeyPair();
  for (const m of MIGRATIONS.slice(0, before6)) o.exec(m);
  o.pragma(`user_version = ${before6}`);
  o.prepare(`INSERT INTO servers (name, endpoint, mode, interface, address, listen_port, dns, private_key, public_key, created_at, updated_at)
    VALUES ('old', 'old.example.com:51830', 'forward', 'wgcp1', '10.93.0.1/24', 51830, '10.93.0.1', ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`)
    .run(oldKeys.privateKey, oldKeys.publicKey);
  o.prepare(`INSERT INTO peers (server_id, name, ip, public_key, preshared_key, created_at, updated_at)
    VALUES (1, 'p', '10.93.0.5', ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`).run(generateKeyPair().publicKey, Buffer.alloc(32, 7).toString('base64'));
  o.close();
  const m = await wgcp(target, 'restore', older);
  assert.is(m.code, 0, m.stderr);
  assert.match(m.stdout, new RegExp(`schema ${before6}, migrated to ${MIGRATIONS.length}\\): 1 servers, 1 peers`));
  const d = await startTestDaemon({ dataDir: target, env: { WGCP_API_KEY: 'test-key-0123456789abcdef' } });
  try {
    const servers = (await call(d.url, 'GET', '/api/servers', undefined, { 'wg-control-key': 'test-key-0123456789abcdef' })).json;
    assert.is(servers[0].name, 'old');
    assert.match(servers[0].address6, /^fd[0-9a-f:]+::1\/64$/);
    assert.ok(servers[0].peers[0].ip6.endsWith('::5'), servers[0].peers[0].ip6);
  } finally {
    await d.stop();
  }
});

t('the database before a restore is kept as wgcp.db.before-restore-<time>, 0600, holding the old state', async () => {
  const target = tempDir('wgcp-target-');
  assert.is((await wgcp(target, 'restore', path.join(dir, 'older.db'))).code, 0);
  const r = await wgcp(target, 'restore', path.join(dir, 'good.db'));
  assert.is(r.code, 0, r.stderr);
  const kept = fs.readdirSync(target).filter((f) => /^wgcp\.db\.before-restore-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/.test(f));
  assert.is(kept.length, 1, fs.readdirSync(target).join(' '));
  assert.match(r.stdout, new RegExp(`kept as .*${kept[0].replace(/\./g, '\\.')}`));
  assert.is(fs.statSync(path.join(target, kept[0])).mode & 0o777, 0o600);
  const db = new Database(path.join(target, kept[0]), { readonly: true });
  assert.equal(db.prepare('SELECT name FROM servers').pluck().all(), ['old']);
  db.close();
  const live = new Database(path.join(target, 'wgcp.db'), { readonly: true });
  assert.equal(live.prepare('SELECT name FROM servers ORDER BY id').pluck().all(), ['office', 'lab']);
  live.close();
});

t('GET /api/backup streams the same backup to an admin; with a passphrase header it is encrypted', async () => {
  assert.is((await call(src.url, 'GET', '/api/backup')).status, 401);
  const expected = await answers(src);
  const plain = await call(src.url, 'GET', '/api/backup', undefined, { 'wg-control-key': src.key });
  assert.is(plain.status, 200, plain.text);
  assert.is(plain.headers.get('content-type'), 'application/vnd.sqlite3');
  assert.match(plain.headers.get('content-disposition') ?? '', /^attachment; filename="wgcp-backup-\d{8}T\d{6}Z\.db"$/);
  assert.is(plain.headers.get('cache-control'), 'no-store');
  const file = path.join(dir, 'from-api.db');
  fs.writeFileSync(file, plain.bytes);
  const restored = await restoredDaemon(file);
  try {
    assert.is(await answers(restored), expected);
  } finally {
    await restored.stop();
  }
  const enc = await call(src.url, 'GET', '/api/backup', undefined, { 'wg-control-key': src.key, 'wgcp-backup-passphrase': 'correct horse battery staple' });
  assert.is(enc.status, 200);
  assert.is(enc.bytes.subarray(0, 8).toString('latin1'), 'WGCPENC1');
  const encFile = path.join(dir, 'from-api.wgcpenc');
  fs.writeFileSync(encFile, enc.bytes);
  const target = tempDir('wgcp-target-');
  assert.is((await wgcp(target, 'restore', encFile, '--passphrase-file', PASS)).code, 0);
  const short = await call(src.url, 'GET', '/api/backup', undefined, { 'wg-control-key': src.key, 'wgcp-backup-passphrase': 'short' });
  assert.equal([short.status, short.json.field], [400, 'wgcp-backup-passphrase']);
  assert.equal(fs.readdirSync(src.dataDir).filter((f) => f.endsWith('.tmp')), [], 'no temporary copy is left');
});

t('a backup taken while the daemon writes is one state the daemon answered, neither the first nor the last', async () => {
  const s = (await api.post('/api/servers', { name: 'busy', endpoint: 'busy.example.com:51840', mode: 'forward', address: '10.94.0.1/24' })).json;
  const seen: string[] = [];
  let stop = false;
  let backupDone = -1;
  const load = (async () => {
    // Each write is one transaction, and the answer after each is recorded: whatever instant
    // the snapshot catches, the daemon answered that state once.
    const record = async () => { seen.push((await api.get(`/api/servers/${s.id}`)).text); };
    let prev: number | null = null;
    for (let i = 0; !stop || seen.length < backupDone + 3; i++) {
      const p = (await api.post(`/api/servers/${s.id}/peers`, { name: `load-${i}` })).json;
      await record();
      if (prev !== null) { await api.put(`/api/peers/${prev}`, { name: `load-${i - 1}-renamed` }); await record(); }
      if (i % 3 === 2) { await api.del(`/api/peers/${p.id}`); await record(); } else prev = p.id;
    }
  })();
  while (seen.length < 3) await new Promise((r) => setTimeout(r, 20));
  const file = path.join(dir, 'busy.db');
  const r = await wgcp(src.dataDir, 'backup', '--out', file);
  assert.is(r.code, 0, r.stderr);
  backupDone = seen.length;
  stop = true;
  await load;
  const restored = await restoredDaemon(file);
  try {
    const got = (await client(restored).get(`/api/servers/${s.id}`)).text;
    const at = seen.indexOf(got);
    assert.ok(at >= 1 && at < seen.length - 1, `the restored answer is state ${at} of ${seen.length}`);
  } finally {
    await restored.stop();
    await api.del(`/api/servers/${s.id}`);
  }
});

t.run();
