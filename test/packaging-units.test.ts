// The systemd units and every shell script of the packaging, checked by the tools that
// judge them: systemd-analyze verify and shellcheck. Plus the directives the issue asks for.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, haveTools, runCommand } from './packaging-container';

const t = suite('packaging: systemd units and shell scripts');
const runs = haveTools('packaging-units', ['systemd-analyze', 'shellcheck']);
const UNITS = ['systemd/wgcpd.service', 'systemd/wgcp-agent.service'];

/** Directive -> every value it is given, in order (comments and sections left out). */
export function parseUnit(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1], [...(out.get(m[1]) ?? []), m[2]]);
  }
  return out;
}

const unit = (file: string) => parseUnit(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'));
const one = (u: Map<string, string[]>, key: string) => (u.get(key) ?? []).join(' ');

const SCRIPTS = [
  'packaging/build-deb.sh', 'packaging/build-ipk.sh', 'packaging/stage-app.sh',
  'packaging/ci/debian-root.sh', 'packaging/ha/wgcp-ha-notify',
  'packaging/deb/wgcp/postinst', 'packaging/deb/wgcp/prerm', 'packaging/deb/wgcp/postrm', 'packaging/deb/wgcp/wgcp',
  'packaging/deb/wgcp-agent/postinst', 'packaging/deb/wgcp-agent/prerm', 'packaging/deb/wgcp-agent/postrm', 'packaging/deb/wgcp-agent/wgcp-agent',
  'packaging/check-elf.sh',
  // The stand-ins of OpenWrt's rc.common, functions.sh and procd.sh (test/openwrt-procd.test.ts).
  'test/fixtures/openwrt/rc-procd.sh',
  // The OpenWrt feed's scripts (test/openwrt-feed.test.ts checks that none is left out).
  'openwrt/wgcp/files/wgcpd.init', 'openwrt/wgcp/files/wgcp.cli', 'openwrt/wgcp/files/wgcp.uci-defaults',
  'openwrt/wgcp/files/fw4-include.sh', 'openwrt/wgcp/files/cleanup.sh', 'openwrt/wgcp-agent/files/wgcp-agent.init',
];

if (runs) {
  t('systemd-analyze verify accepts both units', async () => {
    const r = await runCommand('systemd-analyze', ['verify', ...UNITS.map((u) => path.join(REPO_ROOT, u))]);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stderr.trim(), '', 'no warnings either');
  });

  t('wgcpd is a notify service with a watchdog, restarted on failure, with its state and env file', () => {
    const u = unit('systemd/wgcpd.service');
    assert.is(one(u, 'Type'), 'notify');
    assert.is(one(u, 'NotifyAccess'), 'all');
    assert.match(one(u, 'WatchdogSec'), /^\d+$/);
    assert.is(one(u, 'Restart'), 'on-failure');
    assert.is(one(u, 'StateDirectory'), 'wgcp');
    assert.is(one(u, 'EnvironmentFile'), '/etc/wgcp/wgcpd.env');
    assert.is(one(u, 'User'), 'wgcp');
  });

  for (const file of UNITS) {
    t(`${path.basename(file)} holds CAP_NET_ADMIN alone inside a strict sandbox that V8 tolerates`, () => {
      const u = unit(file);
      assert.is(one(u, 'CapabilityBoundingSet'), 'CAP_NET_ADMIN');
      assert.is(one(u, 'AmbientCapabilities'), 'CAP_NET_ADMIN');
      for (const yes of ['NoNewPrivileges', 'ProtectHome', 'PrivateTmp', 'ProtectKernelModules', 'ProtectKernelTunables', 'ProtectControlGroups', 'RestrictNamespaces', 'RestrictSUIDSGID', 'LockPersonality']) {
        assert.is(one(u, yes), 'yes', yes);
      }
      assert.is(one(u, 'ProtectSystem'), 'strict');
      assert.is(one(u, 'SystemCallFilter'), '@system-service');
      assert.equal(one(u, 'RestrictAddressFamilies').split(' ').sort(), ['AF_INET', 'AF_INET6', 'AF_NETLINK', 'AF_UNIX']);
      assert.is(one(u, 'DeviceAllow'), '/dev/net/tun rw');
      assert.not.ok(u.has('MemoryDenyWriteExecute'), 'V8 needs writable+executable pages');
      assert.not.ok(u.has('ProcSubset'), 'ip and nft read /proc/net and /proc/sys');
    });
  }

  for (const file of SCRIPTS) {
    t(`shellcheck finds nothing in ${file}`, async () => {
      const r = await runCommand('shellcheck', ['-x', path.join(REPO_ROOT, file)]);
      assert.is(r.code, 0, r.stdout + r.stderr);
    });
  }
}

t.run();
