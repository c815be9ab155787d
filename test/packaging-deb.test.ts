// The debs as built by `npm run package:deb`: lintian's verdict, the control fields, the
// conffiles and what is (and is not) inside.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../src/config';
import { agentVersion, buildDebs, haveTools, mustRun, packageVersion, runCommand } from './packaging-container';

const t = suite('packaging: the debs');
const runs = haveTools('packaging-deb', ['npm', 'dpkg-deb', 'dpkg-shlibdeps', 'lintian', 'fakeroot']);
let dir = '';
let arch = '';
const deb = () => path.join(dir, `wgcp_${packageVersion()}_${arch}.deb`);
const agentDeb = () => path.join(dir, `wgcp-agent_${agentVersion()}_all.deb`);
const field = async (file: string, name: string) => (await mustRun('dpkg-deb', ['-f', file, name])).trim();
const listing = async (file: string) => mustRun('dpkg-deb', ['-c', file]);

/** Reads one file out of a deb's data archive. */
async function member(file: string, inside: string): Promise<Buffer> {
  const out = path.join(dir, 'extract');
  fs.rmSync(out, { recursive: true, force: true });
  await mustRun('dpkg-deb', ['-x', file, out]);
  return fs.readFileSync(path.join(out, inside));
}

const ELF_MACHINE: Record<string, number> = { amd64: 62, arm64: 183, armhf: 40, i386: 3 };

if (runs) {
  t('npm run package:deb builds both debs', async () => {
    dir = await buildDebs();
    arch = (await mustRun('dpkg', ['--print-architecture'])).trim();
    assert.ok(fs.existsSync(deb()), deb());
    assert.ok(fs.existsSync(agentDeb()), agentDeb());
  });

  t('lintian reports no error and no warning on either deb', async () => {
    const r = await runCommand('lintian', ['--fail-on', 'error,warning', deb(), agentDeb()]);
    const findings = r.stdout.split('\n').filter((l) => /^[EW]: /.test(l));
    assert.equal(findings, []);
    assert.is(r.code, 0, r.stdout + r.stderr);
  });

  t('the daemon deb holds to the Node major its SQLite addon was built for', async () => {
    const major = Number(process.versions.node.split('.')[0]);
    const depends = await field(deb(), 'Depends');
    assert.ok(depends.includes(`nodejs (>= ${major}), nodejs (<< ${major + 1})`), depends);
    for (const dep of ['openssl', 'nftables', 'wireguard-tools', 'iproute2', 'libc6']) assert.ok(depends.includes(dep), dep);
    assert.is(await field(deb(), 'Architecture'), arch);
    assert.is(await field(deb(), 'Version'), packageVersion());
  });

  t('better-sqlite3 is inside, compiled for this architecture', async () => {
    const addon = await member(deb(), 'usr/lib/wgcp/node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    assert.equal([...addon.subarray(0, 4)], [0x7f, 0x45, 0x4c, 0x46]);
    assert.is(addon.readUInt16LE(18), ELF_MACHINE[arch]);
  });

  t('only the runtime is shipped: compiled src/, production modules, unit, wrapper, docs', async () => {
    const files = await listing(deb());
    for (const f of ['./usr/lib/wgcp/dist/src/main.js', './usr/lib/wgcp/dist/web/index.html', './usr/lib/wgcp/dist/src/cli/main.js', './usr/lib/wgcp/dist/package.json',
      './usr/bin/wgcp', './usr/lib/systemd/system/wgcpd.service', './usr/lib/tmpfiles.d/wgcp.conf', './etc/wgcp/wgcpd.env',
      './usr/share/doc/wgcp/copyright', './usr/share/doc/wgcp/docs/configuration.md.gz', './usr/share/man/man1/wgcp.1.gz', './usr/lib/wgcp/node_modules/http-errors/package.json']) {
      assert.ok(files.includes(f), `${f} is in the deb`);
    }
    for (const absent of ['/dist/test/', '/dist/bench/', 'node_modules/typescript/', 'node_modules/uvu/', 'node_modules/@types/', './usr/lib/wgcp/src/']) {
      assert.not.ok(files.includes(absent), `${absent} is not in the deb`);
    }
    assert.match(files, /^-rw------- root\/root .* \.\/etc\/wgcp\/wgcpd\.env$/m);
    assert.not.match(files, /\.ts$/m, 'no TypeScript, not even declarations');
    const version = JSON.parse((await member(deb(), 'usr/lib/wgcp/dist/package.json')).toString()).version;
    assert.is(version, packageVersion(), 'the daemon reports the package version');
  });

  t('the standby pair\'s notify script (755) and keepalived example (644, not a conffile: keepalived reads its own) are shipped', async () => {
    const files = await listing(deb());
    assert.match(files, /^-rwxr-xr-x root\/root .* \.\/usr\/libexec\/wgcp\/wgcp-ha-notify$/m);
    assert.match(files, /^-rw-r--r-- root\/root .* \.\/usr\/share\/doc\/wgcp\/examples\/keepalived-wgcp\.conf\.example$/m);
    assert.match((await member(deb(), 'usr/share/doc/wgcp/examples/keepalived-wgcp.conf.example')).toString(), /^\s*notify \/usr\/libexec\/wgcp\/wgcp-ha-notify$/m, 'the example names the script where the deb puts it');
    assert.match((await member(deb(), 'usr/share/doc/wgcp/examples/conntrackd.conf.example')).toString(), /Mode FTFW/, 'and the conntrackd example beside it');
  });

  t('the env file is the one conffile, and it names every variable the daemon reads', async () => {
    assert.is((await mustRun('dpkg-deb', ['-I', deb(), 'conffiles'])).trim(), '/etc/wgcp/wgcpd.env');
    const text = (await member(deb(), 'etc/wgcp/wgcpd.env')).toString();
    const named = [...text.matchAll(/^#?([A-Z_]+)=/gm)].map((m) => m[1]).sort();
    assert.equal(named, ['SERVER_SALT', 'WGCP_API_KEY', 'WGCP_AUDIT_DAYS', 'WGCP_DATA_DIR', 'WGCP_DEVICE_LISTEN', 'WGCP_DEVICE_RATE', 'WGCP_HEARTBEAT_CACHE', 'WGCP_HEARTBEAT_FLUSH_S', 'WGCP_KERNEL', 'WGCP_KERNEL_AUDIT_S', 'WGCP_LISTEN',
      'WGCP_LOG_LEVEL', 'WGCP_METRICS_LISTEN', 'WGCP_OIDC_CLIENT_ID', 'WGCP_OIDC_CLIENT_SECRET_FILE', 'WGCP_OIDC_ISSUER', 'WGCP_OIDC_ROLES', 'WGCP_OIDC_SCOPES',
      'WGCP_PAGE_KEY_SIGN_IN', 'WGCP_PROVISION_RETRY_WINDOW', 'WGCP_PUBLIC_URL', 'WGCP_TLS_CERT', 'WGCP_TLS_KEY', 'WGCP_USAGE_INTERVAL_S', 'WGCP_WAN_INTERFACES']);
    const active = Object.fromEntries([...text.matchAll(/^([A-Z_]+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
    assert.is(loadConfig(active).dataDir, '/var/lib/wgcp');
    // The commented TLS settings, once uncommented together, are accepted too.
    const all = Object.fromEntries([...text.matchAll(/^#?((?:WGCP_DEVICE_LISTEN|WGCP_TLS_\w+))=(.+)$/gm)].map((m) => [m[1], m[2]]));
    assert.ok(loadConfig({ ...active, ...all }).deviceListen);
  });

  t('the agent deb is arch all, needs Node 18, and carries the bundle (its WebCrypto fallback beside it), unit and an example config', async () => {
    assert.is(await field(agentDeb(), 'Architecture'), 'all');
    assert.ok((await field(agentDeb(), 'Depends')).includes('nodejs (>= 18)'));
    const files = await listing(agentDeb());
    for (const f of ['./usr/lib/wgcp-agent/wgcp-agent.js', './usr/lib/wgcp-agent/wgcp-agent-webcrypto.js', './usr/bin/wgcp-agent', './usr/lib/systemd/system/wgcp-agent.service',
      './usr/share/doc/wgcp-agent/examples/config.json']) {
      assert.ok(files.includes(f), f);
    }
    JSON.parse((await member(agentDeb(), 'usr/share/doc/wgcp-agent/examples/config.json')).toString());
  });
}

t.run();
