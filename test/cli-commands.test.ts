// The `wgcp` command as a person or a script meets it, run as a real process on a real data
// folder beside a real daemon: each command has its own help, an unknown command or option
// is named, `wgcp version` gives the one version, every command that prints data prints a
// table for people and JSON with --json, and a backup without --out lands in the data folder.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMANDS, COMMAND_NAMES } from '../src/cli/help';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { suiteNeeding } from './helpers/root';

const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const REPO = path.join(__dirname, '..', '..');
const VERSION = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version as string;
const t = suite('wgcp: its own help for each command, unknown commands named, version, a table or --json, backup into the data folder');

interface CliResult { code: number; stdout: string; stderr: string }
const wgcpIn = (cwd: string, ...args: string[]): Promise<CliResult> =>
  run(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd } })
    .then((r) => ({ code: 0, ...r }), (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }));

let d: TestDaemon;
let cwd: string;
const wgcp = (...args: string[]) => wgcpIn(cwd, '--data-dir', d.dataDir, ...args);

t.before(async () => {
  cwd = tempDir('wgcp-cli-cwd-');
  d = await startTestDaemon();
  const api = client(d);
  assert.is((await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).status, 201);
  assert.is((await api.post('/api/servers/1/peers', { name: 'phone' })).status, 201);
});
t.after(async () => { await d.stop(); });

t('each command answers --help, -h and `wgcp help COMMAND` with its own usage, its options and an example, exit 0', async () => {
  const seen = new Set<string>();
  for (const name of COMMAND_NAMES) {
    for (const form of name === 'backup' || name === 'top' ? [[name, '--help'], [name, '-h'], ['help', name]] : [[name, '--help']]) {
      const r = await wgcpIn(cwd, ...form);
      assert.is(r.code, 0, form.join(' '));
      assert.is(r.stderr, '', form.join(' '));
      assert.ok(r.stdout.startsWith(`usage: wgcp ${COMMANDS[name].synopsis[0].split(' ')[0]}`), `${form.join(' ')}: ${r.stdout}`);
      assert.match(r.stdout, /\nexamples?:\n {2}(WGCP_LISTEN=\S+ )?wgcp /, form.join(' '));
      for (const [flag] of COMMANDS[name].options) assert.ok(r.stdout.includes(`  ${flag}`), `${name} --help names ${flag}`);
      seen.add(r.stdout);
    }
  }
  assert.is(seen.size, COMMAND_NAMES.length, 'every command has a help of its own, the same in each form');
  const backup = await wgcpIn(cwd, 'backup', '--help');
  assert.match(backup.stdout, /--out FILE +where to write it; - is stdout \(default: <data folder>\/backups\//);
  assert.match(backup.stdout, /--passphrase-file F/);
});

t('--help alone lists every command with one line, and says how to get a command\'s own help', async () => {
  const r = await wgcpIn(cwd, '--help');
  assert.is(r.code, 0);
  for (const name of COMMAND_NAMES) assert.match(r.stdout, new RegExp(`\\n  ${name} +\\S`), name);
  assert.match(r.stdout, /wgcp COMMAND --help/);
});

t('an unknown command is named, with a hint, exit 2 and nothing on stdout', async () => {
  const foo = await wgcpIn(cwd, 'foo');
  assert.equal([foo.code, foo.stdout, foo.stderr], [2, '', "wgcp: unknown command 'foo'\n`wgcp --help` lists the commands\n"]);
  const typo = await wgcpIn(cwd, 'bakup', '--out', 'x');
  assert.equal([typo.code, typo.stderr], [2, "wgcp: unknown command 'bakup': did you mean 'backup'?\n`wgcp --help` lists the commands\n"]);
  const help = await wgcpIn(cwd, 'help', 'frobnicate');
  assert.equal([help.code, help.stderr.split('\n')[0]], [2, "wgcp: unknown command 'frobnicate'"]);
});

t('an option the command does not take is refused (exit 2) rather than ignored, and writes nothing', async () => {
  const r = await wgcp('backup', '--ouy', 'elsewhere.db');
  assert.equal([r.code, r.stderr], [2, 'wgcp: unknown option --ouy for wgcp backup; `wgcp backup --help` lists its options\n']);
  assert.not.ok(fs.existsSync(path.join(d.dataDir, 'backups')));
  assert.is((await wgcp('apikey', 'create', '--expires-in-days', '3')).code, 2, 'an API key does not expire');
});

t('wgcp version and --version print the one version of package.json; --json gives it to scripts', async () => {
  assert.equal(await wgcpIn(cwd, 'version'), { code: 0, stdout: `wgcp ${VERSION}\n`, stderr: '' });
  assert.equal(await wgcpIn(cwd, '--version'), { code: 0, stdout: `wgcp ${VERSION}\n`, stderr: '' });
  assert.equal(JSON.parse((await wgcpIn(cwd, 'version', '--json')).stdout), { version: VERSION });
  const agent = JSON.parse(fs.readFileSync(path.join(REPO, 'agent', 'package.json'), 'utf8')).version;
  assert.is(agent, VERSION, "the agent's package follows the daemon's version");
});

t('apikey and token lists: a table by default, the API\'s records with --json; a new key with --json is a record holding it', async () => {
  const made = await wgcp('apikey', 'create', '--name', 'laptop', '--role', 'viewer', '--json');
  assert.is(made.code, 0, made.stderr);
  const record = JSON.parse(made.stdout);
  assert.equal([record.name, record.role], ['laptop', 'viewer']);
  assert.match(record.secret, /^wgk_/);
  assert.match((await wgcp('token', 'create', '--name', 'grafana', '--expires-in-days', '9')).stdout, /^wgt_\S+\n$/);

  const table = await wgcp('apikey', 'list');
  const lines = table.stdout.trimEnd().split('\n');
  assert.match(lines[0], /^ID {2}NAME +ROLE +CREATED +LAST USED$/);
  assert.match(table.stdout, new RegExp(`\\n +${record.id} {2}laptop +viewer +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +-\\n`));
  const json = JSON.parse((await wgcp('apikey', 'list', '--json')).stdout) as { name: string; secret?: string }[];
  assert.ok(json.some((k) => k.name === 'laptop'));
  assert.not.ok(json.some((k) => 'secret' in k), 'no secret in a list');
  assert.not.ok(table.stdout.includes(record.secret), 'no secret in the table');

  const tokens = (await wgcp('token', 'list')).stdout;
  assert.match(tokens, /^ID {2}NAME +ROLE +CREATED +LAST USED +EXPIRES\n/);
  assert.match(tokens, /grafana +admin +\S+ \S+ +- +\d{4}-/);
  assert.is(JSON.parse((await wgcp('token', 'list', '--json')).stdout)[0].name, 'grafana');
});

t('regtoken list, audit and top: a table by default, JSON with --json', async () => {
  const token = (await wgcp('regtoken', 'create', '--server', '1')).stdout.trim();
  const regs = await wgcp('regtoken', 'list');
  assert.match(regs.stdout, /^TOKEN +SERVER +STATE +CREATED +EXPIRES +USED +DEVICE\n/);
  assert.match(regs.stdout, new RegExp(`\\n${token} +1 +unused `));
  assert.is(JSON.parse((await wgcp('regtoken', 'list', '--json')).stdout)[0].token, token);

  const audit = await wgcp('audit', '--action', 'peer.create');
  assert.match(audit.stdout, /^ID +WHEN \(UTC\) +WHO +ACTION +TARGET +WHAT\n/);
  assert.match(audit.stdout, /\n +\d+ {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}apikey:\d+ first-start +peer\.create +peer:1 +.*name=phone/);
  const lines = (await wgcp('audit', '--json', '--action', 'peer.create')).stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.map((l) => [l.action, l.targetId]), [['peer.create', '1']]);
  assert.is((await wgcp('audit', '--action', 'no.such')).stdout, 'no audit entries\n');

  const top = await wgcp('top');
  assert.match(top.stdout, /^busiest peers \d\d:\d\d-\d\d:\d\d UTC/);
  assert.equal(Object.keys(JSON.parse((await wgcp('top', '--json')).stdout)), ['from', 'to', 'peers']);
});

t('backup without --out writes <data folder>/backups/wgcp-backup-<time>.db (file 0600, folder 0700), names it in full, and leaves the working folder alone', async () => {
  const r = await wgcp('backup');
  assert.is(r.code, 0, r.stderr);
  const dir = path.join(d.dataDir, 'backups');
  const files = fs.readdirSync(dir);
  assert.is(files.length, 1);
  assert.match(files[0], /^wgcp-backup-\d{8}T\d{6}Z\.db$/);
  const file = path.join(dir, files[0]);
  assert.ok(r.stdout.startsWith(`wrote ${file} (`), r.stdout);
  assert.is((fs.statSync(file).mode & 0o777).toString(8), '600');
  assert.is((fs.statSync(dir).mode & 0o777).toString(8), '700');
  assert.equal(fs.readdirSync(cwd), [], 'nothing in the working folder');
});

t.run();

// `wgcp check` reads the kernel (nft, wg and ip, as root, or through the running daemon, which
// reads them the same way): where they cannot run, it has no answer to print.
const checked = suiteNeeding('wgcp check: a table or --json', ['nft', 'wg', 'ip'], { root: true });
checked.before(async () => {
  cwd = tempDir('wgcp-cli-cwd-');
  d = await startTestDaemon();
  assert.is((await client(d).post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).status, 201);
});
checked.after(async () => { await d.stop(); });

checked('a table of differences and a sentence by default, {same, differences} with --json, the same exit code', async () => {
  const text = await wgcp('check');
  const json = await wgcp('check', '--json');
  assert.is(json.code, text.code);
  const answer = JSON.parse(json.stdout) as { same: boolean; differences: { kind: string; summary: string }[] };
  assert.is(answer.same, json.code === 0);
  if (answer.differences.length) {
    assert.match(text.stdout, /^KIND +DIFFERENCE\n/);
    for (const diff of answer.differences) assert.ok(text.stdout.includes(diff.summary), diff.summary);
  } else {
    assert.is(text.stdout, 'the kernel holds what the database says\n');
  }
});

checked.run();
