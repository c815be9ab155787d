// The daemon package's real Build/Prepare and Build/Compile (openwrt/wgcp/Makefile), run by
// GNU make with the stand-in SDK (packaging/openwrt-sdk-stub) aimed at aarch64 with
// Debian's cross compiler (g++-aarch64-linux-gnu): better-sqlite3 must come out as an
// AArch64 shared object (readelf), built against the node headers in the staging folder.
// The stand-in has no musl: Debian's cross toolchain is glibc's, so this proves the
// compiler and flags reach node-gyp, not the C library (check-elf.sh guards that on the SDK).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRun } from './helpers/root';
import { mustRun, REPO_ROOT, runCommand } from './packaging-container';

// The build folder is named by the feed Makefile's PKG_VERSION (the package's version).
const PKG_VERSION = /^PKG_VERSION:=(\S+)$/m.exec(fs.readFileSync(path.join(REPO_ROOT, 'openwrt', 'wgcp', 'Makefile'), 'utf8'))![1];

const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const t = suite('openwrt: better-sqlite3 cross-compiled for aarch64 by the feed Makefile');
const STUB = path.join(REPO_ROOT, 'packaging', 'openwrt-sdk-stub');
const CHECK = path.join(REPO_ROOT, 'packaging', 'check-elf.sh');
const HOST_ADDON = path.join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release');
let work = '';

if (canRun('openwrt cross build', ['make', 'npm', 'readelf', 'aarch64-linux-gnu-g++', 'aarch64-linux-gnu-gcc', 'python3'])) {
  t.after(() => { if (work) fs.rmSync(work, { recursive: true, force: true }); });

  t('make stub-compile with STUB_ARCH=aarch64 builds an AArch64 better_sqlite3.node and checks it', async () => {
    work = tempDir('wgcp-cross-');
    const out = await mustRun('make', ['-C', path.join(REPO_ROOT, 'openwrt', 'wgcp'), `TOPDIR=${STUB}`, `STUB_WORK=${work}`,
      'STUB_ARCH=aarch64', 'STUB_CROSS=aarch64-linux-gnu-', 'stub-compile'], { timeoutMs: 15 * 60_000 });
    // The compiler came from $(MAKE_FLAGS), the flags from $(MAKE_VARS) with $(FPIC).
    assert.match(out, /CXX="aarch64-linux-gnu-g\+\+"/);
    assert.match(out, /CXXFLAGS="[^"]*-fPIC/);
    assert.match(out, /npm_config_arch=arm64/);
    const addon = path.join(work, 'build', `wgcp-${PKG_VERSION}`, 'dist', 'pkgbuild', 'app', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    const header = await mustRun('readelf', ['-h', addon]);
    assert.match(header, /Machine:\s+AArch64/);
    assert.match(header, /Class:\s+ELF64/);
    assert.match(header, /Type:\s+DYN/);
    assert.match(out, /better_sqlite3\.node: ELF64 AArch64/, 'check-elf.sh ran in Build/Compile');
    // Only the addon is kept, stripped by the target's strip.
    assert.equal(fs.readdirSync(path.dirname(addon)), ['better_sqlite3.node']);
    assert.not.match(await mustRun('readelf', ['-S', addon]), /\.debug_info/);
  });

  t('check-elf.sh refuses a module of another machine, and a glibc module for a musl target', async () => {
    let r = await runCommand('bash', [CHECK, 'aarch64', HOST_ADDON]);
    assert.is(r.code, 1);
    assert.match(r.stderr, /not ELF64 DYN for "AArch64" \(aarch64\): built with the wrong compiler/);
    r = await runCommand('bash', [CHECK, 'arm', HOST_ADDON]);
    assert.is(r.code, 1);
    r = await runCommand('bash', [CHECK, 'x86_64', HOST_ADDON], { env: { ...process.env, WGCP_TARGET_LIBC: 'musl' } });
    assert.is(r.code, 1);
    assert.match(r.stderr, /needs glibc; the target's C library is musl/);
    r = await runCommand('bash', [CHECK, 'mips', HOST_ADDON]);
    assert.is(r.code, 2);
    assert.match(r.stderr, /no node for mips/);
    r = await runCommand('bash', [CHECK, 'x86_64', HOST_ADDON]);
    assert.is(r.code, 0, r.stderr);
  });
}

t.run();
