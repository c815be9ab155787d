// The OpenWrt package's own scripts, run for real as root: /etc/uci-defaults/90-wgcp (data
// folder, EC P-256 TLS pair, fw4 sections), /usr/bin/wgcp (drops to the daemon's user before
// it touches the data folder: a link planted there is never followed as root), and the
// prerm's cleanup (removes only the interfaces of wgcp's servers and the table inet wgcp).
// Each runs in a private mount namespace whose /etc/passwd and /etc/group hold the package's
// users; `uci` is a stand-in keeping key=value lines, `px5g` a stand-in that hands the very
// arguments it gets to `openssl req -x509` (whose parser then checks them); absolute paths
// of the scripts are pointed at a temporary root.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { Netns } from './helpers/netns';
import { mustRun, REPO_ROOT, runCommand, type Result } from './packaging-container';

const t = suite('openwrt: uci-defaults, the admin wrapper and the prerm cleanup, run as root');
const FILES = path.join(REPO_ROOT, 'openwrt', 'wgcp', 'files');
const WGCP = 372;
let base = '';

/** A fresh folder under the suite's base, readable by the daemon's user. */
function dir(name: string): string {
  const d = path.join(base, name);
  fs.mkdirSync(d, { recursive: true, mode: 0o755 });
  return d;
}

/** A package script with its absolute paths replaced (each `from` must be there). */
function script(file: string, replace: [string | RegExp, string][]): string {
  let text = fs.readFileSync(path.join(FILES, file), 'utf8');
  for (const [from, to] of replace) {
    assert.ok(typeof from === 'string' ? text.includes(from) : from.test(text), `${file} holds ${from}`);
    text = typeof from === 'string' ? text.split(from).join(to) : text.replace(from, to);
  }
  const out = path.join(dir('scripts'), file);
  fs.writeFileSync(out, text, { mode: 0o755 });
  return out;
}

/** Runs cmd as root with the package's users known, optionally inside a network namespace. */
function asRootWithUsers(cmd: string[], env: NodeJS.ProcessEnv = process.env, ns?: Netns): Promise<Result> {
  const users = dir('users');
  const passwd = path.join(users, 'passwd');
  const group = path.join(users, 'group');
  fs.writeFileSync(passwd, `${fs.readFileSync('/etc/passwd', 'utf8')}wgcp:x:${WGCP}:${WGCP}:wgcp:/var:/bin/false\n`);
  fs.writeFileSync(group, `${fs.readFileSync('/etc/group', 'utf8')}wgcp:x:${WGCP}:wgcp\n`);
  const inner = ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c',
    'mount --bind "$0" /etc/passwd && mount --bind "$1" /etc/group && shift && exec "$@"', passwd, group, ...cmd];
  const [head, ...rest] = ns ? ['ip', 'netns', 'exec', ns.name, ...inner] : inner;
  return runCommand(head, rest, { env, timeoutMs: 60_000 });
}

/** Stand-ins on PATH: uci (a key=value file) and px5g (its arguments logged, then openssl req -x509 -nodes). */
function standIns(store: string, px5gLog: string): string {
  const bin = dir('bin');
  fs.writeFileSync(path.join(bin, 'uci'), `#!/bin/sh
[ "$1" = -q ] && shift
case $1 in
  get) v=$(grep -F "$2=" '${store}' | head -n 1) || exit 1; [ -n "$v" ] || exit 1; echo "\${v#*=}" ;;
  batch) while read -r cmd arg; do
      case $cmd in set) echo "$arg" | tr -d "'" >>'${store}' ;; add_list) echo "$arg" | tr -d "'" | sed 's/=/+=/' >>'${store}' ;; esac
    done ;;
  *) exit 1 ;;
esac
`, { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'px5g'), `#!/bin/sh
echo "$*" >>'${px5gLog}'
[ "$1" = selfsigned ] || exit 1
shift
exec openssl req -x509 -nodes "$@"
`, { mode: 0o755 });
  return bin;
}

const stat = (f: string) => fs.lstatSync(f);
const mode = (f: string) => (stat(f).mode & 0o777).toString(8);

if (canRunAsRoot('openwrt scripts', ['unshare', 'mount', 'openssl', 'ip', 'nft'])) {
  t.before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-owscripts-'));
    fs.chmodSync(base, 0o755);
  });
  t.after(() => { if (base) fs.rmSync(base, { recursive: true, force: true }); });

  t('uci-defaults makes the data folder, an EC P-256 pair (key 0640 root:wgcp) and the fw4 sections, once', async () => {
    const root = dir('ud');
    const store = path.join(root, 'uci');
    const px5gLog = path.join(root, 'px5g.log');
    fs.writeFileSync(store, `wgcp.main.data_dir=${root}/data\n`);
    fs.writeFileSync(path.join(root, 'firewall'), '');
    const ud = script('wgcp.uci-defaults', [['/etc/wgcp/tls', `${root}/tls`], ['/etc/config/firewall', `${root}/firewall`]]);
    const env = { ...process.env, PATH: `${standIns(store, px5gLog)}:${process.env.PATH}` };
    let r = await asRootWithUsers(['sh', ud], env);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.is(stat(`${root}/data`).uid, WGCP);
    assert.is(mode(`${root}/data`), '700');
    const key = `${root}/tls/wgcpd.key`;
    assert.equal([stat(key).uid, stat(key).gid, mode(key)], [0, WGCP, '640']);
    assert.is(mode(`${root}/tls/wgcpd.crt`), '644');
    assert.match(fs.readFileSync(px5gLog, 'utf8'), /^selfsigned -newkey ec -pkeyopt ec_paramgen_curve:P-256 -days 3650 /);
    assert.match(await mustRun('openssl', ['pkey', '-in', key, '-noout', '-text']), /NIST CURVE: P-256/);
    assert.match(await mustRun('openssl', ['x509', '-in', `${root}/tls/wgcpd.crt`, '-noout', '-text']), /Public Key Algorithm: id-ecPublicKey[\s\S]*prime256v1|P-256/);
    const uci = fs.readFileSync(store, 'utf8');
    for (const line of ['firewall.wgcp=zone', 'firewall.wgcp.device+=wgcp+', 'firewall.wgcp.input=ACCEPT', 'firewall.wgcp.forward=ACCEPT',
      'firewall.wgcp_wan=forwarding', 'firewall.wgcp_wan.dest=wan', 'firewall.wgcp_wireguard.dest_port=51820-51839',
      'firewall.wgcp_device_api.dest_port=8443', 'firewall.wgcp_device_api.enabled=0', 'firewall.wgcp_include.path=/usr/share/wgcp/fw4-include.sh',
      'firewall.wgcp_include.fw4_compatible=1']) {
      assert.ok(uci.split('\n').includes(line), line);
    }
    const keyBytes = fs.readFileSync(key);
    r = await asRootWithUsers(['sh', ud], env);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.ok(fs.readFileSync(key).equals(keyBytes), 'the pair is kept');
    assert.is(fs.readFileSync(store, 'utf8'), uci, 'the firewall sections are added once');
  });

  t('uci-defaults refuses a data folder that is a link (and is kept for the next boot)', async () => {
    const root = dir('ud-link');
    fs.mkdirSync(path.join(root, 'elsewhere'));
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'data'));
    const store = path.join(root, 'uci');
    fs.writeFileSync(store, `wgcp.main.data_dir=${root}/data\n`);
    const ud = script('wgcp.uci-defaults', [['/etc/wgcp/tls', `${root}/tls`], ['/etc/config/firewall', `${root}/firewall`]]);
    const r = await asRootWithUsers(['sh', ud], { ...process.env, PATH: `${standIns(store, path.join(root, 'px5g.log'))}:${process.env.PATH}` });
    assert.is(r.code, 1);
    assert.match(r.stderr, /is a symbolic link/);
    assert.is(stat(path.join(root, 'elsewhere')).uid, 0);
  });

  t('wgcp run by root works as wgcp: its files are wgcp\'s, and a link planted in the data folder is not followed', async () => {
    const data = dir('cli-data');
    // The database wgcpd made at its first start (wgcp refuses a folder without one), wgcp's.
    const { Store } = require(path.join(__dirname, '..', 'src', 'store', 'store.js')) as { Store: { open(dir: string): { close(): void } } };
    Store.open(data).close();
    for (const f of [data, ...fs.readdirSync(data).map((f) => path.join(data, f))]) fs.chownSync(f, WGCP, WGCP);
    fs.chmodSync(data, 0o700);
    const victim = path.join(dir('cli-victim'), 'shadow');
    fs.writeFileSync(victim, 'secret', { mode: 0o600 });
    fs.symlinkSync(victim, path.join(data, 'planted'));
    fs.lchownSync(path.join(data, 'planted'), WGCP, WGCP);
    const cli = script('wgcp.cli', [[/^NODE=.*$/m, `NODE=${process.execPath}`], [/^MAIN=.*$/m, `MAIN=${path.join(__dirname, '..', 'src', 'cli', 'main.js')}`]]);
    assert.not.match(fs.readFileSync(path.join(FILES, 'wgcp.cli'), 'utf8'), /^[^#]*\bchown\b/m);
    const r = await asRootWithUsers([cli, 'apikey', 'create', '--name', 'openwrt'], { ...process.env, WGCP_DATA_DIR: data });
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /\S{16,}/);
    for (const f of fs.readdirSync(data)) assert.is(stat(path.join(data, f)).uid, WGCP, f);
    assert.ok(fs.readdirSync(data).includes('wgcp.db'));
    assert.equal([stat(victim).uid, mode(victim)], [0, '600'], 'the link\'s target is untouched');
  });

  t('the prerm cleanup removes the marked interfaces of wgcp\'s servers and inet wgcp, nothing else, and leaves no root file in the data folder', async () => {
    const data = dir('rm-data');
    const { Store } = require(path.join(__dirname, '..', 'src', 'store', 'store.js')) as { Store: { open(dir: string): { db: { prepare(sql: string): { run(...a: unknown[]): unknown } }; close(): void } } };
    const store = Store.open(data);
    const now = new Date().toISOString();
    store.db.prepare(`INSERT INTO servers (name, endpoint, mode, interface, address, listen_port, dns, mtu, private_key, public_key, created_at, updated_at)
      VALUES ('office', '192.0.2.1:51820', 'forward', 'wgcp7', '10.7.0.1/24', 51820, '', NULL, 'k', 'p', ?, ?)`).run(now, now);
    // A server row naming a link wgcpd never marked (the router's own): it must stay.
    store.db.prepare(`INSERT INTO servers (name, endpoint, mode, interface, address, listen_port, dns, mtu, private_key, public_key, created_at, updated_at)
      VALUES ('lan', '192.0.2.1:51821', 'forward', 'wgcp9', '10.9.0.1/24', 51821, '', NULL, 'k', 'p', ?, ?)`).run(now, now);
    store.close();
    for (const f of [data, ...fs.readdirSync(data).map((f) => path.join(data, f))]) fs.chownSync(f, WGCP, WGCP);
    fs.chmodSync(data, 0o700);
    const ns = new Netns('rm');
    try {
      for (const [a, b] of [['wgcp7', 'wgcp7p'], ['wg0', 'wg0p'], ['wgcp8', 'wgcp8p'], ['wgcp9', 'wgcp9p']]) ns.exec('ip', ['link', 'add', a, 'type', 'veth', 'peer', 'name', b]);
      ns.exec('ip', ['link', 'set', 'dev', 'wgcp7', 'alias', 'wgcp-managed']);
      for (const table of ['wgcp', 'fw4']) ns.exec('nft', ['-f', '-'], `table inet ${table} {\n  chain c {\n    type filter hook forward priority 0;\n  }\n}\n`);
      const cleanup = script('cleanup.sh', [[/^INIT=.*$/m, 'INIT=/nonexistent/wgcpd'], [/^NODE=.*$/m, `NODE=${process.execPath}`],
        [/^LIB=.*$/m, `LIB=${REPO_ROOT}`], [/^DEFAULT_DATA_DIR=.*$/m, `DEFAULT_DATA_DIR=${data}`]]);
      const r = await asRootWithUsers(['sh', cleanup], { ...process.env, PATH: `/nonexistent-uci:${process.env.PATH}` }, ns);
      assert.is(r.code, 0, r.stdout + r.stderr);
      const links = ns.exec('ip', ['-o', 'link', 'show']);
      assert.not.match(links, /: wgcp7@/);
      for (const kept of ['wg0', 'wgcp8', 'wgcp9']) assert.match(links, new RegExp(`: ${kept}@`), kept);
      const tables = ns.exec('nft', ['list', 'tables']);
      assert.not.match(tables, /inet wgcp/);
      assert.match(tables, /inet fw4/);
      for (const f of fs.readdirSync(data)) assert.is(stat(path.join(data, f)).uid, WGCP, f);
    } finally {
      ns.destroy();
    }
  });
}

t.run();
