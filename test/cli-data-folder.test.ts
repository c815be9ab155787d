// The `wgcp` command as a newcomer meets it, run as a real process: it finds the database the
// daemon of a clone uses (./var), refuses a folder without one instead of making an empty
// database, answers --help, and after a restore or an import into a running wgcpd whose
// kernel backend is off says so, rather than that the kernel holds the new state.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { kernelOutcome } from '../src/backup/daemon-kernel';
import { chooseDataDir } from '../src/cli/data-dir';
import { generateKeyPair } from '../src/wg/keys';
import { call, startTestDaemon, tempDir } from './helpers/daemon';
import { spawnDaemon } from './helpers/process';
import { wgQuickServer } from './import-support';

const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const t = suite('wgcp: the data folder of a clone, folders without a database, --help, restore and import with the kernel off');

interface CliResult { code: number; stdout: string; stderr: string }
/** `wgcp` in `cwd` with an environment that does not name a data folder. */
const wgcp = (cwd: string, ...args: string[]): Promise<CliResult> =>
  run(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd } })
    .then((r) => ({ code: 0, ...r }), (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }));

t('the folder: --data-dir, else WGCP_DATA_DIR, else ./var when ./var/wgcp.db exists, else /var/lib/wgcp', () => {
  const has = (files: string[]) => (f: string) => files.includes(f);
  assert.is(chooseDataDir('data', { WGCP_DATA_DIR: '/elsewhere' }, '/clone', has(['/clone/var/wgcp.db'])), '/clone/data');
  assert.is(chooseDataDir(undefined, { WGCP_DATA_DIR: 'mine' }, '/clone', has(['/clone/var/wgcp.db'])), '/clone/mine');
  assert.is(chooseDataDir(undefined, { WGCP_DATA_DIR: '' }, '/clone', has(['/clone/var/wgcp.db'])), '/clone/var');
  assert.is(chooseDataDir(undefined, {}, '/clone', has([])), '/var/lib/wgcp');
  assert.is(chooseDataDir(undefined, {}, '/clone', has(['/clone/var/other.db'])), '/var/lib/wgcp');
});

t('run in a clone where `npm start` made ./var, `wgcp apikey create` makes a key the running daemon accepts', async () => {
  const clone = tempDir('wgcp-clone-');
  const d = await startTestDaemon({ dataDir: path.join(clone, 'var') });
  try {
    const made = await wgcp(clone, 'apikey', 'create', '--name', 'from the clone');
    assert.is(made.code, 0, made.stderr);
    const key = made.stdout.trim();
    assert.is((await call(d.url, 'GET', '/api/servers', undefined, { 'wg-control-key': key })).status, 200);
    assert.is((await call(d.url, 'GET', '/api/servers', undefined, { 'wg-control-key': 'wgk_' + 'x'.repeat(43) })).status, 401);
  } finally {
    await d.stop();
  }
});

t('apikey, token, regtoken and top on a folder without a database refuse, exit 1, and make nothing there', async () => {
  const empty = tempDir('wgcp-nodb-');
  for (const args of [['apikey', 'create'], ['apikey', 'list'], ['token', 'create'], ['token', 'list'], ['regtoken', 'list'], ['regtoken', 'create', '--server', '1'], ['top']]) {
    const r = await wgcp(empty, '--data-dir', empty, ...args);
    assert.is(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.is(r.stderr, `wgcp: no database at ${path.join(empty, 'wgcp.db')}: is the data folder right (--data-dir, WGCP_DATA_DIR)? wgcpd makes it when it first starts\n`);
    assert.is(r.stdout, '');
    assert.equal(fs.readdirSync(empty), [], args.join(' '));
  }
});

t('wgcp init makes the database a fresh folder lacks (as a package does before the first start); then apikey create works there', async () => {
  const fresh = tempDir('wgcp-init-');
  const made = await wgcp(fresh, '--data-dir', fresh, 'init');
  assert.is(made.code, 0, made.stderr);
  assert.is(made.stdout, `the database is ${path.join(fresh, 'wgcp.db')}\n`);
  assert.is((fs.statSync(path.join(fresh, 'wgcp.db')).mode & 0o777).toString(8), '600');
  assert.is((await wgcp(fresh, '--data-dir', fresh, 'apikey', 'list', '--json')).stdout, '[]\n');
  const key = await wgcp(fresh, '--data-dir', fresh, 'apikey', 'create', '--name', 'first');
  assert.is(key.code, 0, key.stderr);
  assert.match(key.stdout, /^wgk_/);
  assert.is((await wgcp(fresh, '--data-dir', fresh, 'init')).code, 0, 'again: the database is kept');
  assert.is(JSON.parse((await wgcp(fresh, '--data-dir', fresh, 'apikey', 'list', '--json')).stdout).length, 1);
});

t('--help, -h and help print the usage with the folder rule and exit 0; no command is a usage error (exit 2)', async () => {
  const here = tempDir('wgcp-help-');
  for (const arg of ['--help', '-h', 'help']) {
    const r = await wgcp(here, arg);
    assert.is(r.code, 0, arg);
    assert.match(r.stdout, /^usage: wgcp \[--data-dir DIR\] COMMAND \[options\]\n/);
    assert.match(r.stdout, /else \.\/var when \.\/var\/wgcp\.db exists/);
    assert.match(r.stdout, /`npm run wgcp -- COMMAND`/);
    assert.is(r.stderr, '');
  }
  const none = await wgcp(here);
  assert.is(none.code, 2);
  assert.match(none.stderr, /^wgcp: no command given\nusage: wgcp/);
});

t('where the kernel stands after wgcpd starts again: on, off with its reason, failed servers, or not said', () => {
  assert.is(kernelOutcome({ state: 'on', failed: [] }, 'the restored state'), 'the kernel holds the restored state');
  assert.is(kernelOutcome({ state: 'off', reason: 'WGCP_KERNEL=off', failed: [] }, 'the restored state'),
    "wgcpd's kernel backend is off (WGCP_KERNEL=off): the restored state is stored, not applied to WireGuard or nftables");
  const failed = { state: 'on' as const, failed: [{ serverId: 3, interface: 'wgcp3', reason: 'port 51820 in use' }] };
  assert.is(kernelOutcome(failed, 'the imported server', 3), 'the kernel holds the imported server except a server that failed (wgcpd retries): server 3 (wgcp3): port 51820 in use');
  assert.is(kernelOutcome(failed, 'the imported server', 4), 'the kernel holds the imported server');
  assert.match(kernelOutcome(null, 'the restored state'), /^wgcpd did not say how its kernel backend stands/);
});

t('restore and import into a running wgcpd with the kernel off: each is its own change, without a restart, and the CLI says the state is stored, not applied', async () => {
  const dir = tempDir('wgcp-off-');
  const dataDir = path.join(dir, 'data');
  const daemon = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off' });
  try {
    const backup = path.join(dir, 'state.db');
    const taken = await wgcp(dir, '--data-dir', dataDir, 'backup', '--out', backup);
    assert.is(taken.code, 0, taken.stderr);
    const restored = await wgcp(dir, '--data-dir', dataDir, 'restore', backup);
    assert.is(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /restored by the running wgcpd \(pid \d+\) as one change, without a restart: 0 servers, 0 peers\n/);
    assert.match(restored.stdout, /\nwgcpd's kernel backend is off \(WGCP_KERNEL=off\): the restored state is stored, not applied to WireGuard or nftables\n/);
    assert.not.match(restored.stdout, /kernel holds/);

    const conf = path.join(dir, 'wg7.conf');
    fs.writeFileSync(conf, wgQuickServer({ privateKey: generateKeyPair().privateKey, address: '10.77.0.1/24', listenPort: 47301, peers: [{ comment: 'phone', publicKey: generateKeyPair().publicKey, allowedIps: '10.77.0.2/32' }] }));
    const imported = await wgcp(dir, '--data-dir', dataDir, 'import', 'wg-quick', conf, '--endpoint', 'vpn.example.com:47301');
    assert.is(imported.code, 0, imported.stderr);
    // The import is the running daemon's own change, through its socket: no restart.
    assert.match(imported.stdout, /imported through wgcpd: server \d+/);
    assert.match(imported.stdout, /wgcpd's kernel backend is off \(WGCP_KERNEL=off\): the imported server is stored, not applied to WireGuard or nftables\n/);
    assert.not.match(imported.stdout, /kernel holds/);
    assert.is(daemon.lines.filter((l) => l.msg === 'wgcpd is listening').length, 1, 'started once: neither the restore nor the import restarts it');
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
});

t.run();
