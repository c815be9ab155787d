// The OpenWrt feed as an SDK meets it: `scripts/feeds update` indexes a feed with
// include/scan.mk's pipeline (find -L <feed> -mindepth 1 -maxdepth 5 -name Makefile | xargs
// grep 'call BuildPackage' | sed | uniq, then scan.awk keeps one folder a package), reproduced
// here on the feed linked as `src-link` does; then each package's Makefile is read by GNU
// make with the stand-in SDK (packaging/openwrt-sdk-stub) as the metadata scan would.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRun } from './helpers/root';
import { mustRun, REPO_ROOT, runCommand } from './packaging-container';

const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const t = suite('openwrt: the feed as scripts/feeds and the SDK read it');
const STUB = path.join(REPO_ROOT, 'packaging', 'openwrt-sdk-stub');

/**
 * scan.mk's FILELIST for SCAN_DIR=feeds/<name> (its find, grep, sed and uniq), then what
 * scan.awk keeps: the package folders, one a name, sorted.
 */
async function scanFeed(topdir: string, name: string): Promise<string[]> {
  const scanDir = `feeds/${name}`;
  const pipeline = `find -L ${scanDir} -mindepth 1 -maxdepth 5 -name Makefile | xargs grep -aHE 'call (Build/DefaultTargets|BuildPackage|KernelPackage)' | sed -e 's#^${scanDir}/##' -e 's#/Makefile:.*##' | uniq`;
  const out = await mustRun('sh', ['-c', `cd '${topdir}' && ${pipeline}`]);
  const byLast = new Map<string, string>();
  for (const dir of out.split('\n').filter(Boolean)) byLast.set(dir.split('/').pop()!, dir);
  return [...byLast.values()].sort();
}

/** A build tree with the feed linked as `src-link <name> <folder>` leaves it: feeds/<name> -> folder. */
function buildTree(name: string, folder: string): string {
  const top = tempDir('wgcp-feeds-');
  fs.mkdirSync(path.join(top, 'feeds'));
  fs.symlinkSync(folder, path.join(top, 'feeds', name));
  return top;
}

const stubDump = (dir: string) => mustRun('make', ['-s', '-C', dir, `TOPDIR=${STUB}`, 'stub-dump']);

if (canRun('openwrt feed', ['make', 'find', 'xargs', 'grep', 'sed', 'shellcheck'])) {
  t('the scan finds one folder a package: wgcp and wgcp-agent', async () => {
    const top = buildTree('wgcp', path.join(REPO_ROOT, 'openwrt'));
    try {
      assert.equal(await scanFeed(top, 'wgcp'), ['wgcp', 'wgcp-agent']);
      // `feeds install` then links package/feeds/wgcp/<folder> to the folder's Makefile's directory.
      for (const pkg of ['wgcp', 'wgcp-agent']) assert.ok(fs.existsSync(path.join(top, 'feeds', 'wgcp', pkg, 'Makefile')));
    } finally {
      fs.rmSync(top, { recursive: true, force: true });
    }
  });

  t('the same scan finds nothing usable in the old layout (a Makefile at the feed\'s root)', async () => {
    const old = tempDir('wgcp-oldfeed-');
    const top = buildTree('wgcp', old);
    try {
      fs.copyFileSync(path.join(REPO_ROOT, 'openwrt', 'wgcp', 'Makefile'), path.join(old, 'Makefile'));
      const found = await scanFeed(top, 'wgcp');
      assert.is(found.length, 1);
      assert.match(found[0], /^Makefile:/, 'no folder name: the SDK gets no package');
    } finally {
      for (const d of [top, old]) fs.rmSync(d, { recursive: true, force: true });
    }
  });

  t('each Makefile is read by make: name, version, dependencies, user, architecture', async () => {
    const daemon = await stubDump(path.join(REPO_ROOT, 'openwrt', 'wgcp'));
    assert.match(daemon, /^Package: wgcp$/m);
    assert.match(daemon, /^Depends: \+node \+wireguard-tools \+nftables \+kmod-wireguard \+kmod-nft-nat \+procd-ujail \+px5g-mbedtls \+tc-tiny \+kmod-sched-core \+kmod-ifb \+kmod-nft-netdev @!NODEJS_ICU_NONE$/m);
    assert.match(daemon, /^Require-User: wgcp=372:wgcp=372$/m);
    assert.match(daemon, /^Architecture: target$/m);
    const agent = await stubDump(path.join(REPO_ROOT, 'openwrt', 'wgcp-agent'));
    assert.match(agent, /^Package: wgcp-agent$/m);
    assert.match(agent, /^Depends: .*\+procd-ujail/m);
    assert.match(agent, /^Architecture: all$/m);
  });

  t('the daemon\'s native build takes the target\'s toolchain and flags, and its output is checked', () => {
    const mk = fs.readFileSync(path.join(REPO_ROOT, 'openwrt', 'wgcp', 'Makefile'), 'utf8');
    assert.match(mk, /^TARGET_CPPFLAGS\+=\$\(FPIC\)$/m);
    assert.match(mk, /^\t\$\(MAKE_VARS\) \\$/m);
    assert.match(mk, /^\t\$\(MAKE_FLAGS\) \\$/m);
    assert.match(mk, /^\tnpm_config_nodedir=\$\(STAGING_DIR\)\/usr\/ \\$/m);
    assert.match(mk, /check-elf\.sh \$\(ARCH\) /);
  });

  t('every script of the feed is shipped and shellcheck-clean', async () => {
    const files = ['wgcp', 'wgcp-agent'].flatMap((pkg) => fs.readdirSync(path.join(REPO_ROOT, 'openwrt', pkg, 'files')).map((f) => path.join(REPO_ROOT, 'openwrt', pkg, 'files', f)));
    const scripts = files.filter((f) => fs.readFileSync(f, 'utf8').startsWith('#!'));
    assert.ok(scripts.length >= 6, scripts.join(' '));
    for (const f of files) {
      const pkg = path.basename(path.dirname(path.dirname(f)));
      assert.match(fs.readFileSync(path.join(REPO_ROOT, 'openwrt', pkg, 'Makefile'), 'utf8'), new RegExp(`\\./files/${path.basename(f).replace(/\./g, '\\.')} `), `${f} is installed`);
    }
    const r = await runCommand('shellcheck', ['-x', ...scripts, path.join(REPO_ROOT, 'packaging', 'check-elf.sh')]);
    assert.is(r.code, 0, r.stdout + r.stderr);
  });
}

t.run();
