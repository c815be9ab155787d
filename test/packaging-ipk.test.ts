// The OpenWrt packages as `npm run package:ipk` builds them from the feed's package folders
// (openwrt/wgcp, openwrt/wgcp-agent; data from each Makefile's install recipe): opened
// as opkg opens them (an ar archive of debian-binary, control.tar.gz, data.tar.gz), with
// their control fields, conffiles, maintainer scripts and files checked.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, agentVersion, haveTools, mustRun, packageVersion, runCommand } from './packaging-container';

/** Members of an ar archive, in order (GNU ar, short names ending in "/"). */
export function readAr(buf: Buffer): Array<{ name: string; data: Buffer }> {
  if (buf.subarray(0, 8).toString('latin1') !== '!<arch>\n') throw new Error('not an ar archive');
  const members = [];
  for (let off = 8; off + 60 <= buf.length;) {
    const header = buf.subarray(off, off + 60).toString('latin1');
    if (header.slice(58, 60) !== '`\n') throw new Error(`bad ar header at ${off}`);
    const size = Number(header.slice(48, 58).trim());
    members.push({ name: header.slice(0, 16).trim().replace(/\/$/, ''), data: buf.subarray(off + 60, off + 60 + size) });
    off += 60 + size + (size % 2);
  }
  return members;
}

/** Control fields of an opkg/dpkg control file (continuation lines joined). */
export function parseControl(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let last = '';
  for (const line of text.split('\n')) {
    if (/^\s/.test(line) && last) out[last] += '\n' + line.trim();
    else if (line.includes(':')) { last = line.slice(0, line.indexOf(':')); out[last] = line.slice(line.indexOf(':') + 1).trim(); }
  }
  return out;
}

const t = suite('packaging: the OpenWrt ipks');
const runs = haveTools('packaging-ipk', ['npm', 'ar', 'tar', 'shellcheck', 'make']);
const makefileOf = (pkg: string) => fs.readFileSync(path.join(REPO_ROOT, 'openwrt', pkg, 'Makefile'), 'utf8');
const varOf = (pkg: string, name: string) => new RegExp(`^${name}:=(.*)$`, 'm').exec(makefileOf(pkg))?.[1] ?? '';
const mkVar = (name: string) => varOf('wgcp', name);
let work = '';
const opened = new Map<string, { control: Record<string, string>; dir: string; conffiles: string }>();

/** Unpacks an ipk the way opkg does, into <work>/<name>/{control,data}. */
async function open(file: string) {
  const members = readAr(fs.readFileSync(file));
  assert.equal(members.map((m) => m.name), ['debian-binary', 'control.tar.gz', 'data.tar.gz']);
  assert.is(members[0].data.toString(), '2.0\n');
  const dir = path.join(work, path.basename(file, '.ipk'));
  for (const part of ['control', 'data'] as const) {
    fs.mkdirSync(path.join(dir, part), { recursive: true });
    const tgz = path.join(dir, `${part}.tar.gz`);
    fs.writeFileSync(tgz, members.find((m) => m.name === `${part}.tar.gz`)!.data);
    zlib.gunzipSync(fs.readFileSync(tgz)); // a real gzip stream, or this throws
    await mustRun('tar', ['-xzf', tgz, '-C', path.join(dir, part)]);
  }
  const control = parseControl(fs.readFileSync(path.join(dir, 'control', 'control'), 'utf8'));
  return { control, dir, conffiles: fs.readFileSync(path.join(dir, 'control', 'conffiles'), 'utf8') };
}

/** Every shell script a package installs (by its #! line), for shellcheck. */
function shellScripts(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (!entry.isFile() || file.includes(`${path.sep}node_modules${path.sep}`) || file.endsWith('.js')) continue;
    if (/^#!\/bin\/sh/.test(fs.readFileSync(file, 'utf8').slice(0, 40))) out.push(file);
  }
  return out;
}

const daemonIpk = () => opened.get('wgcp')!;
const agentIpk = () => opened.get('wgcp-agent')!;
const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

if (runs) {
  t('npm run package:ipk builds wgcp and wgcp-agent, each opened as opkg does', async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-ipk-'));
    const out = path.join(work, 'out');
    const built = (await mustRun('npm', ['run', '-s', 'package:ipk', '--', out], { timeoutMs: 15 * 60_000 })).trim().split('\n');
    for (const file of built) {
      const o = await open(file);
      opened.set(o.control.Package, o);
    }
    assert.equal([...opened.keys()].sort(), ['wgcp', 'wgcp-agent']);
  });
  t.after(() => { if (work) fs.rmSync(work, { recursive: true, force: true }); });

  t('each feed Makefile carries its version: package.json\'s, and the agent\'s', () => {
    assert.is(mkVar('PKG_VERSION'), packageVersion());
    assert.is(varOf('wgcp-agent', 'PKG_VERSION'), agentVersion());
  });

  t('wgcp control fields: version, node and WireGuard dependencies, its user, an arch', () => {
    const c = daemonIpk().control;
    assert.is(c.Version, `${packageVersion()}-${mkVar('PKG_RELEASE')}`);
    const deps = c.Depends.split(/,\s*/);
    for (const d of ['node', 'wireguard-tools', 'nftables', 'kmod-wireguard', 'procd-ujail', 'px5g-mbedtls']) assert.ok(deps.includes(d), d);
    assert.is(c['Require-User'], 'wgcp=372:wgcp=372');
    assert.is(c.Section, 'net');
    assert.ok(c.Architecture && c.Architecture !== 'all');
    assert.ok(Number(c['Installed-Size']) > 1_000_000);
    assert.match(c.Description, /WireGuard/);
  });

  t('wgcp ships the daemon, the procd init script, UCI defaults, capabilities and sysupgrade keep list', () => {
    const d = path.join(daemonIpk().dir, 'data');
    for (const f of ['usr/lib/wgcp/dist/src/main.js', 'usr/lib/wgcp/dist/web/index.html', 'usr/lib/wgcp/dist/src/cli/main.js', 'usr/lib/wgcp/node_modules/better-sqlite3/build/Release/better_sqlite3.node']) {
      assert.ok(fs.existsSync(path.join(d, f)), f);
    }
    assert.is(mode(path.join(d, 'etc/init.d/wgcpd')), '755');
    assert.is(mode(path.join(d, 'usr/bin/wgcp')), '755');
    assert.is(mode(path.join(d, 'etc/config/wgcp')), '600');
    const caps = JSON.parse(fs.readFileSync(path.join(d, 'etc/capabilities/wgcpd.json'), 'utf8'));
    for (const set of ['bounding', 'effective', 'ambient', 'permitted', 'inheritable']) assert.equal(caps[set], ['CAP_NET_ADMIN'], set);
    assert.is(fs.readFileSync(path.join(d, 'lib/upgrade/keep.d/wgcp'), 'utf8').trim(), '/etc/wgcp/');
    assert.equal(daemonIpk().conffiles.trim().split('\n'), ['/etc/config/wgcp', '/etc/wgcp/']);
    const init = fs.readFileSync(path.join(d, 'etc/init.d/wgcpd'), 'utf8');
    assert.match(init, /^#!\/bin\/sh \/etc\/rc\.common$/m);
    assert.match(init, /procd_set_param respawn/);
    assert.match(init, /procd_add_reload_trigger wgcp/);
    assert.match(init, /procd_set_param capabilities \/etc\/capabilities\/wgcpd\.json/);
    // procd applies user, capabilities and no_new_privs only in ujail: the jail is required,
    // with no filesystem namespace, and gets only the environment named (so PATH is given).
    assert.match(init, /^\s*procd_add_jail wgcpd requirejail$/m);
    assert.match(init, /PATH="\$RUN_PATH"/);
    assert.match(init, /^RUN_PATH=\/usr\/sbin:\/usr\/bin:\/sbin:\/bin$/m);
    assert.not.match(init, /^[^#]*\bchown\b[^#\n]*\s-[a-zA-Z]*R/m);
    assert.match(fs.readFileSync(path.join(d, 'etc/config/wgcp'), 'utf8'), /^\s*option kernel 'on'$/m);
    for (const f of ['etc/uci-defaults/90-wgcp', 'usr/share/wgcp/fw4-include.sh', 'usr/share/wgcp/cleanup.sh', 'usr/share/wgcp/wgcp-ha-notify']) assert.is(mode(path.join(d, f)), '755', f);
    // The standby pair (docs/ha.md): keepalived's example beside its notify script.
    assert.is(mode(path.join(d, 'usr/share/wgcp/keepalived-wgcp.conf.example')), '644');
    assert.is(mode(path.join(d, 'usr/share/wgcp/conntrackd.conf.example')), '644');
    assert.match(fs.readFileSync(path.join(d, 'usr/share/nftables.d/chain-pre/forward_wan/30-wgcp.nft'), 'utf8'), /^ct status dnat oifname "wgcp\*" accept/m);
  });

  t('what the daemon user reads is readable: folders 755, files 644 or 755, only the UCI file 600', async () => {
    for (const ipk of [daemonIpk(), agentIpk()]) {
      const listing = await mustRun('tar', ['-tvzf', path.join(ipk.dir, 'data.tar.gz')]);
      for (const line of listing.trim().split('\n')) {
        const [perm, , , , , name] = line.split(/\s+/);
        const ok = perm.startsWith('d') ? perm === 'drwxr-xr-x' : ['-rw-r--r--', '-rwxr-xr-x'].includes(perm) || (name === './etc/config/wgcp' && perm === '-rw-------');
        assert.ok(ok, `${perm} ${name}`);
      }
    }
  });

  t('every UCI option of /etc/config/wgcp becomes its environment variable in the init script', () => {
    const d = path.join(daemonIpk().dir, 'data');
    const options = [...fs.readFileSync(path.join(d, 'etc/config/wgcp'), 'utf8').matchAll(/^\s*#?option (\w+) /gm)].map((m) => m[1]);
    const init = fs.readFileSync(path.join(d, 'etc/init.d/wgcpd'), 'utf8');
    const mapped = new Map([...init.matchAll(/^\s*uci_env (\w+) (\w+)$/gm)].map((m) => [m[2], m[1]]));
    mapped.set('data_dir', 'WGCP_DATA_DIR');
    for (const option of options.filter((o) => o !== 'enabled')) assert.ok(mapped.has(option), `option ${option} is passed on`);
    assert.equal([...mapped.values()].sort(), ['SERVER_SALT', 'WGCP_API_KEY', 'WGCP_AUDIT_DAYS', 'WGCP_DATA_DIR', 'WGCP_DEVICE_LISTEN', 'WGCP_DEVICE_RATE', 'WGCP_HEARTBEAT_CACHE', 'WGCP_HEARTBEAT_FLUSH_S', 'WGCP_KERNEL', 'WGCP_KERNEL_AUDIT_S', 'WGCP_LISTEN',
      'WGCP_LOG_LEVEL', 'WGCP_METRICS_LISTEN', 'WGCP_OIDC_CLIENT_ID', 'WGCP_OIDC_CLIENT_SECRET_FILE', 'WGCP_OIDC_ISSUER', 'WGCP_OIDC_ROLES', 'WGCP_OIDC_SCOPES',
      'WGCP_PAGE_KEY_SIGN_IN', 'WGCP_PROVISION_RETRY_WINDOW', 'WGCP_PUBLIC_URL', 'WGCP_TLS_CERT', 'WGCP_TLS_KEY', 'WGCP_USAGE_INTERVAL_S', 'WGCP_WAN_INTERFACES']);
  });

  t('the maintainer scripts are OpenWrt\'s default ones plus the Makefile\'s prerm; every script shipped is shellcheck-clean', async () => {
    for (const [name, ipk] of [['wgcp', daemonIpk()], ['wgcp-agent', agentIpk()]] as const) {
      const ctl = path.join(ipk.dir, 'control');
      assert.match(fs.readFileSync(path.join(ctl, 'postinst'), 'utf8'), /default_postinst "\$0" "\$@"/, name);
      assert.match(fs.readFileSync(path.join(ctl, 'prerm'), 'utf8'), /default_prerm "\$0" "\$@"/, name);
      const scripts = fs.readdirSync(ctl).filter((f) => /^(postinst|prerm|postinst-pkg|prerm-pkg)$/.test(f)).map((f) => path.join(ctl, f));
      const r = await runCommand('shellcheck', ['-s', 'sh', ...scripts]);
      assert.is(r.code, 0, r.stdout);
      // Init scripts say `shellcheck shell=dash` (busybox ash under /etc/rc.common); the others are sh.
      const shipped = shellScripts(path.join(ipk.dir, 'data'));
      assert.ok(shipped.length >= (name === 'wgcp' ? 6 : 1), `${name}: ${shipped.join(' ')}`);
      const s = await runCommand('shellcheck', ['-x', ...shipped]);
      assert.is(s.code, 0, s.stdout);
    }
    // default_prerm sources it (no exit), before it stops the service; an upgrade keeps all.
    const prerm = fs.readFileSync(path.join(daemonIpk().dir, 'control', 'prerm-pkg'), 'utf8');
    assert.match(prerm, /\/usr\/share\/wgcp\/cleanup\.sh/);
    assert.match(prerm, /"\$\{PKG_UPGRADE\}" != 1/);
    assert.not.match(prerm, /\bexit\b/);
    assert.not.match(prerm, /\$\$/, "make's $$ is undone");
    assert.not.ok(fs.existsSync(path.join(daemonIpk().dir, 'control', 'postinst-pkg')), 'the default postinst runs uci-defaults');
  });

  t('wgcp-agent is arch all with the bundle (its WebCrypto fallback beside it), its init script and capabilities', () => {
    const c = agentIpk().control;
    assert.is(c.Architecture, 'all');
    assert.is(c.Version, `${agentVersion()}-${mkVar('PKG_RELEASE')}`);
    assert.ok(c.Depends.split(/,\s*/).includes('node'));
    const d = path.join(agentIpk().dir, 'data');
    assert.ok(fs.statSync(path.join(d, 'usr/lib/wgcp-agent/wgcp-agent.js')).size > 10_000);
    assert.ok(fs.statSync(path.join(d, 'usr/lib/wgcp-agent/wgcp-agent-webcrypto.js')).size > 100_000);
    assert.is(mode(path.join(d, 'etc/init.d/wgcp-agent')), '755');
    assert.equal(JSON.parse(fs.readFileSync(path.join(d, 'etc/capabilities/wgcp-agent.json'), 'utf8')).ambient, ['CAP_NET_ADMIN']);
    assert.ok(c.Depends.split(/,\s*/).includes('procd-ujail'));
    const init = fs.readFileSync(path.join(d, 'etc/init.d/wgcp-agent'), 'utf8');
    assert.match(init, /^\s*procd_add_jail wgcp-agent requirejail$/m);
    assert.match(init, /chown root:wgcp-agent "\$CONFIG"\n\s*chmod 0640 "\$CONFIG"/);
    assert.not.match(init, /^[^#]*\bchown\b[^#\n]*\s-[a-zA-Z]*R/m);
    // The example keeps the device's identity on flash (/var is RAM on OpenWrt).
    assert.is(JSON.parse(fs.readFileSync(path.join(d, 'etc/wgcp-agent/config.json.example'), 'utf8')).state_dir, '/etc/wgcp-agent/state');
  });
}

t.run();
