// The OpenWrt packages as `npm run package:ipk` builds them from openwrt/Makefile: opened
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
const runs = haveTools('packaging-ipk', ['ar', 'tar', 'shellcheck']);
const makefile = fs.readFileSync(path.join(REPO_ROOT, 'openwrt', 'Makefile'), 'utf8');
const mkVar = (name: string) => new RegExp(`^${name}:=(.*)$`, 'm').exec(makefile)?.[1] ?? '';
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

  t('the feed Makefile carries the version of package.json and of the agent', () => {
    assert.is(mkVar('PKG_VERSION'), packageVersion());
    assert.is(mkVar('AGENT_VERSION'), agentVersion());
  });

  t('wgcp control fields: version, node and WireGuard dependencies, its user, an arch', () => {
    const c = daemonIpk().control;
    assert.is(c.Version, `${packageVersion()}-${mkVar('PKG_RELEASE')}`);
    const deps = c.Depends.split(/,\s*/);
    for (const d of ['node', 'wireguard-tools', 'nftables', 'kmod-wireguard']) assert.ok(deps.includes(d), d);
    assert.is(c['Require-User'], 'wgcp=372:wgcp=372');
    assert.is(c.Section, 'net');
    assert.ok(c.Architecture && c.Architecture !== 'all');
    assert.ok(Number(c['Installed-Size']) > 1_000_000);
    assert.match(c.Description, /WireGuard/);
  });

  t('wgcp ships the daemon, the procd init script, UCI defaults, capabilities and sysupgrade keep list', () => {
    const d = path.join(daemonIpk().dir, 'data');
    for (const f of ['usr/lib/wgcp/dist/src/main.js', 'usr/lib/wgcp/dist/src/cli/main.js', 'usr/lib/wgcp/node_modules/better-sqlite3/build/Release/better_sqlite3.node']) {
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
    assert.equal([...mapped.values()].sort(), ['SERVER_SALT', 'WGCP_API_KEY', 'WGCP_DATA_DIR', 'WGCP_DEVICE_LISTEN', 'WGCP_HEARTBEAT_CACHE', 'WGCP_KERNEL', 'WGCP_LISTEN',
      'WGCP_LOG_LEVEL', 'WGCP_TLS_CERT', 'WGCP_TLS_KEY', 'WGCP_USAGE_INTERVAL_S']);
  });

  t('the maintainer scripts are OpenWrt\'s default ones plus the Makefile\'s postinst, all shellcheck-clean', async () => {
    for (const [name, ipk] of [['wgcp', daemonIpk()], ['wgcp-agent', agentIpk()]] as const) {
      const ctl = path.join(ipk.dir, 'control');
      assert.match(fs.readFileSync(path.join(ctl, 'postinst'), 'utf8'), /default_postinst "\$0" "\$@"/, name);
      assert.match(fs.readFileSync(path.join(ctl, 'prerm'), 'utf8'), /default_prerm "\$0" "\$@"/, name);
      const scripts = fs.readdirSync(ctl).filter((f) => /^(postinst|prerm|postinst-pkg)$/.test(f)).map((f) => path.join(ctl, f));
      const r = await runCommand('shellcheck', ['-s', 'sh', ...scripts]);
      assert.is(r.code, 0, r.stdout);
    }
    const pkgScript = fs.readFileSync(path.join(daemonIpk().dir, 'control', 'postinst-pkg'), 'utf8');
    assert.match(pkgScript, /\[ -n "\$IPKG_INSTROOT" \] && exit 0/);
    assert.not.match(pkgScript, /\$\$/, "make's $$ is undone");
  });

  t('wgcp-agent is arch all with the bundle, its init script and capabilities', () => {
    const c = agentIpk().control;
    assert.is(c.Architecture, 'all');
    assert.is(c.Version, `${agentVersion()}-${mkVar('PKG_RELEASE')}`);
    assert.ok(c.Depends.split(/,\s*/).includes('node'));
    const d = path.join(agentIpk().dir, 'data');
    assert.ok(fs.statSync(path.join(d, 'usr/lib/wgcp-agent/wgcp-agent.js')).size > 10_000);
    assert.is(mode(path.join(d, 'etc/init.d/wgcp-agent')), '755');
    assert.equal(JSON.parse(fs.readFileSync(path.join(d, 'etc/capabilities/wgcp-agent.json'), 'utf8')).ambient, ['CAP_NET_ADMIN']);
  });
}

t.run();
