// The built bundle (dist/wgcp-agent.js, and dist/wgcp-agent-webcrypto.js beside it) as systemd or procd runs it.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from './helpers/clocks';
import { DeviceServer } from './helpers/device-server';
import { tempDir } from './helpers/temp-dir';

const t = suite('agent command line');
const bundle = path.join(__dirname, '..', '..', 'dist', 'wgcp-agent.js');
const webcryptoFile = path.join(__dirname, '..', '..', 'dist', 'wgcp-agent-webcrypto.js');
const cli = (...args: string[]) => spawnSync(process.execPath, [bundle, ...args], { encoding: 'utf8', timeout: 20_000 });

function configFile(extra: Record<string, unknown> = {}): { file: string; stateDir: string } {
  const dir = tempDir('wgcp-agent-cli-');
  const stateDir = path.join(dir, 'state');
  const file = path.join(dir, 'agent.json');
  fs.writeFileSync(file, JSON.stringify({ server_url: 'http://127.0.0.1:9', token: 'b3a5c1f0-8d2e-4c1a-9f6b-2e7d4a1c0b9e', server_salt: 'salt-salt-salt-salt', hwid: 'board-1', interface: `wgcli${process.pid % 10000}`, state_dir: stateDir, heartbeat_interval_s: 1, ...extra }));
  return { file, stateDir };
}

t('is built as one file', () => {
  assert.ok(fs.existsSync(bundle), `${bundle} is missing: run "npm run build" in agent/`);
  assert.match(fs.readFileSync(bundle, 'utf8').slice(0, 30), '#!/usr/bin/env node');
});

t('needs nothing but Node built-ins (no native or external module)', () => {
  const required = [...fs.readFileSync(bundle, 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
  assert.ok(required.length > 0);
  for (const name of required) assert.match(name, /^node:/, name);
  const apart = [...fs.readFileSync(webcryptoFile, 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
  for (const name of apart) assert.match(name, /^node:/, name);
});

t('keeps @peculiar/webcrypto in a file of its own, loaded only where Node has no WebCrypto', async () => {
  const source = fs.readFileSync(bundle, 'utf8');
  // Its code in the agent's file cost RSS on every device: only the import of the file beside it is there.
  assert.not.match(source, 'AesGcmProvider');
  assert.equal([...source.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1]), ['./wgcp-agent-webcrypto.js']);
  // The file beside it seals what node:crypto opens.
  const { Crypto } = await import(webcryptoFile);
  const subtle = new Crypto().subtle;
  const raw = crypto.createHash('sha256').update('board-1salt').digest();
  const key = await subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt']);
  const iv = crypto.randomBytes(12);
  const sealed = Buffer.from(await subtle.encrypt({ name: 'AES-GCM', iv, tagLength: 128 }, key, Buffer.from('beside')));
  const decipher = crypto.createDecipheriv('aes-256-gcm', raw, iv);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  assert.is(Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]).toString(), 'beside');
});

t("prints its version: the one of agent/package.json, which is wgcp's (package.json)", () => {
  const version = (file: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', file), 'utf8')).version as string;
  const r = cli('--version');
  assert.equal([r.status, r.stdout], [0, `${version('package.json')}\n`]);
  assert.is(version('package.json'), version('../package.json'));
});

t('prints usage and exits 2 on an unknown command or a missing --config', () => {
  assert.is(cli().status, 2);
  assert.match(cli('start').stderr, 'usage: wgcp-agent run --config FILE');
  const r = cli('run');
  assert.equal([r.status, r.stderr], [2, 'wgcp-agent: --config FILE is required\n']);
  assert.is(cli('status', '--config', 'x', '--verbose').status, 2);
});

t('exits 2 naming the key of a bad configuration', () => {
  const { file } = configFile({ interface: 'way-too-long-name' });
  const r = cli('run', '--config', file);
  assert.is(r.status, 2);
  assert.match(r.stderr, `${file}: "interface" must be 1 to 15`);
});

t('reports a never-started agent as STOPPED and disconnected', () => {
  const { file } = configFile();
  const r = cli('status', '--config', file);
  assert.is(r.status, 0);
  assert.equal(JSON.parse(r.stdout), { running: false, state: 'STOPPED', display: 'disconnected', device_id: null, last_heartbeat: null });
});

t('status works with a ca_file it cannot read, and names that problem (run would stop on it)', () => {
  const { file } = configFile({ ca_file: '/nonexistent/ca.pem' });
  const r = cli('status', '--config', file);
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), { running: false, state: 'STOPPED', display: 'disconnected', device_id: null, last_heartbeat: null,
    config_problem: `${file}: "ca_file": cannot read /nonexistent/ca.pem: ENOENT` });
  assert.is(cli('run', '--config', file).status, 2);
});

t('runs in the foreground, shows a failing provisioning in status, and stops on SIGTERM', async () => {
  const server = new DeviceServer();
  await server.start();
  const { file } = configFile({ server_url: server.url }); // its token is unknown to the server: 403
  const child = spawn(process.execPath, [bundle, 'run', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => { out += c; });
  try {
    await until(() => out.includes('"to":"APP_RETRY"'), 10_000, 'APP_RETRY');
    const status = JSON.parse(cli('status', '--config', file).stdout);
    assert.equal(status, { running: true, state: 'APP_RETRY', display: 'failed', device_id: null, last_heartbeat: null });
    assert.match(out, 'HTTP 403: invalid token');
    const second = cli('run', '--config', file);
    assert.is(second.status, 1);
    assert.match(second.stderr, /another agent \(pid \d+\) runs with state_dir/);
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.on('exit', r));
    assert.is(code, 0);
    assert.equal(JSON.parse(cli('status', '--config', file).stdout), { running: false, state: 'STOPPED', display: 'disconnected', device_id: null, last_heartbeat: null });
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await server.close();
  }
});

t('takes over a stale pid file whose pid now belongs to another, newer agent', async () => {
  // As when a site's agents are all killed and started together: the dead agent's pid was
  // given to another folder's new agent, whose command line says wgcp-agent too.
  const server = new DeviceServer();
  await server.start();
  const other = configFile({ server_url: server.url });
  const mine = configFile({ server_url: server.url });
  const children = [spawn(process.execPath, [bundle, 'run', '--config', other.file], { stdio: ['ignore', 'pipe', 'pipe'] })];
  try {
    await until(() => fs.existsSync(path.join(other.stateDir, 'agent.pid')), 10_000, 'the other agent\'s pid file');
    const [pid, started] = fs.readFileSync(path.join(other.stateDir, 'agent.pid'), 'utf8').trim().split(' ');
    assert.is(Number(pid), children[0].pid);
    assert.match(started, /^\d+$/);
    fs.mkdirSync(mine.stateDir, { recursive: true });
    fs.writeFileSync(path.join(mine.stateDir, 'agent.pid'), `${pid} ${Number(started) - 100}\n`);
    // The same pid with its true start time is a live holder: refused.
    fs.writeFileSync(path.join(other.stateDir, 'agent.pid'), `${pid} ${started}\n`);
    assert.is(cli('run', '--config', other.file).status, 1);
    const child = spawn(process.execPath, [bundle, 'run', '--config', mine.file], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let err = '';
    child.stderr.on('data', (c) => { err += c; });
    await until(() => fs.readFileSync(path.join(mine.stateDir, 'agent.pid'), 'utf8').startsWith(`${child.pid} `) || child.exitCode !== null, 10_000, 'the pid file taken over');
    assert.is(child.exitCode, null, err);
    await until(() => JSON.parse(cli('status', '--config', mine.file).stdout).state === 'APP_RETRY', 10_000, 'the new agent at work');
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await server.close();
  }
});

t.run();
