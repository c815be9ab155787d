// The package's procd init script run as OpenWrt runs it, as far as this machine allows:
// /etc/init.d/wgcpd is sourced after the shell stand-ins of rc.common, functions.sh and
// procd.sh (test/fixtures/openwrt/rc-procd.sh), reading the package's own /etc/config/wgcp
// through config_load, as root with the package's user known (a private mount namespace).
// What it hands procd is read back, and then run as procd runs an instance: only its
// environment, its user and group, the capabilities of /etc/capabilities/wgcpd.json, no new
// privileges, in a router namespace; stopped as procd stops one (SIGTERM, SIGKILL after
// term_timeout). ujail itself is not on this machine.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { Netns } from './helpers/netns';
import { nsRequest } from './helpers/ns-daemon';
import { instanceEnv, RC_FAKES, readProcdLog, type ProcdInstance, type ProcdRecord } from './openwrt-procd';
import { REPO_ROOT, runCommand } from './packaging-container';

const t = suite('openwrt: the procd init script started and stopped as procd would, on the package\'s UCI file');
const FILES = path.join(REPO_ROOT, 'openwrt', 'wgcp', 'files');
const WGCP = 372;
const NODE = process.execPath;
const MAIN = path.join(__dirname, '..', 'src', 'main.js');
const CLI_MAIN = path.join(__dirname, '..', 'src', 'cli', 'main.js');
const API_KEY = 'wgk_openwrt-procd-test-key-0001';
let base = '';

function dir(name: string, mode = 0o755): string {
  const d = path.join(base, name);
  fs.mkdirSync(d, { recursive: true, mode });
  fs.chmodSync(d, mode);
  return d;
}

/** A command as root in a private mount namespace where the package's user exists (and, for the daemon, a TUN node and socket folder it may use). */
function withUsers(cmd: string[], opts: { env?: NodeJS.ProcessEnv; ns?: Netns } = {}): string[] {
  const users = dir('users');
  fs.writeFileSync(path.join(users, 'passwd'), `${fs.readFileSync('/etc/passwd', 'utf8')}wgcp:x:${WGCP}:${WGCP}:wgcp:/var:/bin/false\n`);
  fs.writeFileSync(path.join(users, 'group'), `${fs.readFileSync('/etc/group', 'utf8')}wgcp:x:${WGCP}:wgcp\n`);
  const tun = path.join(users, 'tun');
  if (!fs.existsSync(tun)) runCommand('mknod', ['-m', '0666', tun, 'c', '10', '200']);
  const sockets = dir('run-wireguard', 0o1777);
  const inner = ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c',
    'mount --bind "$0/passwd" /etc/passwd && mount --bind "$0/group" /etc/group && mkdir -p /run/wireguard && mount --bind "$1" /run/wireguard'
    + ' && { [ ! -e "$0/tun" ] || mount --bind "$0/tun" /dev/net/tun; } && shift && exec "$@"', users, sockets, ...cmd];
  return opts.ns ? ['ip', 'netns', 'exec', opts.ns.name, ...inner] : inner;
}

/** /etc/config/wgcp as the package ships it, with the data folder here and `extra` lines added to section main. */
function uciDir(label: string, extra: string[] = []): { uci: string; data: string } {
  const uci = dir(`${label}/config`);
  const data = path.join(base, label, 'data');
  const shipped = fs.readFileSync(path.join(FILES, 'wgcp.config'), 'utf8');
  assert.match(shipped, /^\toption data_dir '\/etc\/wgcp\/data'$/m);
  const text = shipped.replace(/^\toption data_dir .*$/m, `\toption data_dir '${data}'`) + extra.map((l) => `\t${l}\n`).join('');
  fs.writeFileSync(path.join(uci, 'wgcp'), text);
  return { uci, data };
}

/** rc.common's start (or stop) of /etc/init.d/wgcpd with the given UCI folder: what procd got, and the script's exit. */
async function rc(action: 'start' | 'stop', uci: string): Promise<{ code: number; stderr: string; record: ProcdRecord }> {
  const init = path.join(dir('init'), 'wgcpd');
  let text = fs.readFileSync(path.join(FILES, 'wgcpd.init'), 'utf8');
  for (const [re, to] of [[/^NODE=.*$/m, `NODE=${NODE}`], [/^MAIN=.*$/m, `MAIN=${MAIN}`]] as const) {
    assert.match(text, re);
    text = text.replace(re, to);
  }
  fs.writeFileSync(init, text, { mode: 0o755 });
  const log = path.join(uci, '..', `procd-${action}.log`);
  fs.rmSync(log, { force: true });
  const env = { ...process.env, PROCD_LOG: log, UCI_CONFIG_DIR: uci };
  const [cmd, ...args] = withUsers(['sh', '-c', `. "$0" && . "$1" && rc_${action} wgcpd`, RC_FAKES, init]);
  const r = await runCommand(cmd, args, { env });
  return { code: r.code, stderr: r.stderr, record: readProcdLog(log) };
}

const one = (i: ProcdInstance, key: string) => i.params.get(key) ?? [];
const capsOf = (set: string[]) => set.map((c) => c.replace(/^CAP_/, '').toLowerCase()).join(',');

if (canRunAsRoot('openwrt procd', ['unshare', 'mount', 'mknod', 'setpriv', 'ip', 'nft', 'wg', 'wireguard-go'])) {
  let started: ProcdInstance;
  let startedData = '';

  t.before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-procd-'));
    fs.chmodSync(base, 0o755);
  });
  t.after(() => { if (base) fs.rmSync(base, { recursive: true, force: true }); });

  t('start hands procd one instance: node with main.js, jailed (requirejail), as wgcp with the capabilities file and no new privileges, respawned, stopped within 15 s', async () => {
    const { uci, data } = uciDir('start');
    const r = await rc('start', uci);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.record.instances.length, 1);
    started = r.record.instances[0];
    startedData = data;
    assert.is(started.name, 'wgcpd');
    assert.equal(one(started, 'command'), [NODE, MAIN]);
    assert.equal([one(started, 'user'), one(started, 'group')], [['wgcp'], ['wgcp']]);
    assert.equal(one(started, 'capabilities'), ['/etc/capabilities/wgcpd.json']);
    assert.equal(one(started, 'no_new_privs'), ['1']);
    assert.equal(started.jail, ['wgcpd', 'requirejail']);
    assert.equal(one(started, 'respawn'), ['3600', '5', '5']);
    assert.equal(one(started, 'term_timeout'), ['15']);
    assert.equal([one(started, 'stdout'), one(started, 'stderr')], [['1'], ['1']]);
  });

  t('its environment is what /etc/config/wgcp says, option by option, with PATH, and nothing of the caller\'s', () => {
    // Every option the shipped file sets, under the variable the script's uci_env names for it.
    const names = new Map([...fs.readFileSync(path.join(FILES, 'wgcpd.init'), 'utf8').matchAll(/^\tuci_env (\w+) (\w+)$/gm)].map((m) => [m[2], m[1]]));
    const expected: Record<string, string> = { WGCP_DATA_DIR: startedData, PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
    for (const [, option, value] of fs.readFileSync(path.join(FILES, 'wgcp.config'), 'utf8').matchAll(/^\toption (\w+) '([^']*)'$/gm)) {
      if (option === 'enabled' || option === 'data_dir') continue;
      assert.ok(names.has(option), `option ${option} has a variable`);
      expected[names.get(option)!] = value;
    }
    assert.equal(instanceEnv(started), expected);
    assert.is(instanceEnv(started).WGCP_KERNEL, 'on');
    assert.is(instanceEnv(started).WGCP_LISTEN, '127.0.0.1:8080');
  });

  t('the data folder is made wgcp\'s, 0700, and a reload trigger follows the wgcp config', async () => {
    const st = fs.statSync(startedData);
    assert.equal([st.uid, st.gid, (st.mode & 0o777).toString(8)], [WGCP, WGCP, '700']);
    const { uci } = uciDir('triggers');
    assert.equal((await rc('start', uci)).record.triggers, ['wgcp']);
  });

  t('an option set with uci reaches the environment; one commented out stays out', async () => {
    const { uci } = uciDir('options', [`option device_listen '0.0.0.0:8443'`, `option log_level 'debug'`]);
    const env = instanceEnv((await rc('start', uci)).record.instances[0]);
    assert.is(env.WGCP_DEVICE_LISTEN, '0.0.0.0:8443');
    assert.is(env.WGCP_LOG_LEVEL, 'debug', 'the later option wins, as in uci');
    assert.not.ok('WGCP_TLS_CERT' in env);
    assert.not.ok('SERVER_SALT' in env);
  });

  t('enabled 0: no instance', async () => {
    const { uci } = uciDir('disabled', [`option enabled '0'`]);
    const r = await rc('start', uci);
    assert.is(r.code, 0, r.stderr);
    assert.equal(r.record.instances, []);
  });

  t('a data_dir that is a symbolic link: refused, no instance, and its target untouched', async () => {
    const { uci, data } = uciDir('link');
    const target = dir('link/elsewhere');
    fs.symlinkSync(target, data);
    const r = await rc('start', uci);
    assert.is(r.code, 1);
    assert.match(r.stderr, /is a symbolic link/);
    assert.equal(r.record.instances, []);
    assert.is(fs.statSync(target).uid, 0);
  });

  t('stop is procd\'s kill of the service (the script has no stop_service of its own)', async () => {
    const { uci } = uciDir('stop');
    const r = await rc('stop', uci);
    assert.is(r.code, 0, r.stderr);
    assert.equal(r.record.kills, ['wgcpd']);
  });

  t('the instance run as procd runs it (its environment alone, wgcp, the capabilities file\'s set, no new privileges) drives the kernel, answers the wrapper\'s `wgcp check` as root, and ends on procd\'s SIGTERM', async () => {
    const { uci } = uciDir('run', [`option api_key '${API_KEY}'`]);
    const instance = (await rc('start', uci)).record.instances[0];
    const caps = JSON.parse(fs.readFileSync(path.join(FILES, 'wgcpd.capabilities.json'), 'utf8')) as Record<string, string[]>;
    const router = new Netns('procd');
    let child: ChildProcess | null = null;
    try {
      const env = Object.entries(instanceEnv(instance)).map(([k, v]) => `${k}=${v}`);
      const [cmd, ...args] = withUsers(['setpriv', `--reuid=${one(instance, 'user')[0]}`, `--regid=${one(instance, 'group')[0]}`, '--clear-groups',
        `--bounding-set=-all,+${capsOf(caps.bounding)}`, `--inh-caps=-all,+${capsOf(caps.inheritable)}`, `--ambient-caps=-all,+${capsOf(caps.ambient)}`,
        ...(one(instance, 'no_new_privs')[0] === '1' ? ['--no-new-privs'] : []), 'env', '-i', ...env, ...one(instance, 'command')], { ns: router });
      let output = '';
      child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (d) => { output += d; });
      child.stderr!.on('data', (d) => { output += d; });
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child!.once('exit', (code, signal) => resolve({ code, signal })));
      const url = `http://${instanceEnv(instance).WGCP_LISTEN}`;
      for (let i = 0; ; i++) {
        const h = await nsRequest(router, `${url}/healthz`, 'GET', {}).catch(() => null);
        if (h?.status === 200) { assert.is(h.json.kernel, 'on', output); break; }
        if (child.exitCode !== null || i > 300) throw new Error(`wgcpd did not answer: ${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const made = await nsRequest(router, `${url}/api/servers`, 'POST', { 'wg-control-key': API_KEY }, { name: 'home', endpoint: '192.0.2.1:51820', mode: 'forward' });
      assert.is(made.status, 201, made.text);
      // wireguard-go's socket is in the namespace's own /run/wireguard: the link is what shows here.
      assert.match(router.exec('ip', ['-o', 'link', 'show', 'dev', made.json.interface]), 'alias wgcp-managed');
      assert.match(router.exec('nft', ['list', 'tables']), /table inet wgcp/);
      // `wgcp check` by the router's root: the shipped wrapper drops to wgcp inside node, which
      // leaves it no CAP_NET_ADMIN for nft; the daemon compares, asked on its socket.
      const cli = path.join(dir('cli'), 'wgcp');
      fs.writeFileSync(cli, fs.readFileSync(path.join(FILES, 'wgcp.cli'), 'utf8').replace(/^NODE=.*$/m, `NODE=${NODE}`).replace(/^MAIN=.*$/m, `MAIN=${CLI_MAIN}`), { mode: 0o755 });
      const [checkCmd, ...checkArgs] = withUsers(['env', `WGCP_DATA_DIR=${instanceEnv(instance).WGCP_DATA_DIR}`, 'sh', cli, 'check'], { ns: router });
      const checked = await runCommand(checkCmd, checkArgs, { timeoutMs: 60_000 });
      assert.is(checked.code, 0, checked.stdout + checked.stderr);
      assert.match(checked.stdout, /^the kernel holds what the database says$/m);
      // procd's stop: SIGTERM, then SIGKILL once term_timeout has passed.
      child.kill('SIGTERM');
      const killer = setTimeout(() => child!.kill('SIGKILL'), Number(one(instance, 'term_timeout')[0]) * 1000);
      const end = await exited;
      clearTimeout(killer);
      assert.equal(end, { code: 0, signal: null }, `wgcpd ended by itself: ${output}`);
    } finally {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      router.destroy();
    }
  });
}

t.run();
