// The kernels the VM tier boots, fetched from Debian's archive and unpacked into a cache
// folder, never installed: `linux-image-amd64` of a Debian release (trixie: 6.12, bookworm:
// 6.1), and the host's own `busybox-static` (the initramfs's shell) and `kmod` (modprobe and
// depmod, run from the host's root inside the VM, so they must match the host's libraries).
//
// The kernel's release need not be the host's: apt runs with a private configuration (its own
// sources list, lists and archive folders under the cache) that names only that release of
// deb.debian.org, signed by the keys debian-archive-keyring already holds, and is used for
// `apt-get download` alone. The host's apt sources and state are left as they are.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type Release = 'trixie' | 'bookworm';
export const RELEASES: Record<Release, string> = { trixie: 'Debian 13 trixie', bookworm: 'Debian 12 bookworm' };

/** Bump when what is made below changes, so old caches are made again. */
const LAYOUT = 5;
/** The cache's key: its layout and stage 1 as it is now, so a changed test/vm/init.sh is never booted stale. */
const INIT_SH = path.join(__dirname, '../../../test/vm/init.sh');
const cacheKey = (): string => `${LAYOUT}:${crypto.createHash('sha256').update(fs.readFileSync(INIT_SH)).digest('hex')}`;
const MIRROR = process.env.WGCP_VM_MIRROR ?? 'http://deb.debian.org';
const KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';
/** The modules stage 1 loads by hand: virtio's PCI transport (a module in 6.1, built in since), 9p for the host's root, overlay over it, entropy. */
const STAGE1_MODULES = ['virtio_pci', '9pnet_virtio', '9p', 'overlay', 'virtio-rng'];

export interface Kernel {
  release: Release;
  /** `uname -r` inside the VM, e.g. 6.12.57+deb13-amd64. */
  version: string;
  /** The Debian package it came from, with its version. */
  package: string;
  image: string;
  initramfs: string;
  /** lib/modules/<version> of the unpacked package (depmod run on it). */
  modules: string;
  /** kmod's multi-call binary, from the host's release. */
  kmod: string;
}

export const cacheRoot = (): string => process.env.WGCP_VM_CACHE ?? '/var/cache/wgcp-vm';

const sh = (cmd: string, args: string[], opts: { cwd?: string; input?: string } = {}): string =>
  execFileSync(cmd, args, { ...opts, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 64 << 20 });

/** apt-get/apt-cache with a sources list of `release` alone, its lists and archives kept in the cache. */
function privateApt(dir: string, release: Release): string[] {
  const lists = path.join(dir, 'lists');
  const archives = path.join(dir, 'archives');
  fs.mkdirSync(path.join(lists, 'partial'), { recursive: true });
  fs.mkdirSync(path.join(archives, 'partial'), { recursive: true });
  const sources = path.join(dir, 'sources.list');
  fs.writeFileSync(sources, [
    `deb [signed-by=${KEYRING}] ${MIRROR}/debian ${release} main`,
    `deb [signed-by=${KEYRING}] ${MIRROR}/debian-security ${release}-security main`,
    '',
  ].join('\n'));
  return ['-o', `Dir::Etc::SourceList=${sources}`, '-o', 'Dir::Etc::SourceParts=-', '-o', `Dir::State::Lists=${lists}`,
    '-o', `Dir::Cache::Archives=${archives}`, '-o', `Dir::Cache::pkgcache=${path.join(dir, 'pkgcache.bin')}`,
    '-o', `Dir::Cache::srcpkgcache=${path.join(dir, 'srcpkgcache.bin')}`, '-o', 'APT::Get::List-Cleanup=0'];
}

/** Downloads packages into `dir` (as root apt warns that _apt cannot write there: said, harmless). */
function download(dir: string, aptOptions: string[], packages: string[]): void {
  sh('apt-get', [...aptOptions, '-q', 'download', ...packages], { cwd: dir });
}

const onlyFile = (dir: string, prefix: string): string => {
  const found = fs.readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.deb'));
  if (found.length !== 1) throw new Error(`expected one ${prefix}*.deb in ${dir}, found ${found.join(', ') || 'none'}`);
  return path.join(dir, found[0]);
};

/** The kernel of `release`, prepared once (a few seconds and ~110 MB of download) and then read from the cache. */
export function prepareKernel(release: Release): Kernel {
  const root = path.join(cacheRoot(), release);
  const readyFile = path.join(root, 'ready.json');
  try {
    const ready = JSON.parse(fs.readFileSync(readyFile, 'utf8')) as Kernel & { layout: string };
    if (ready.layout === cacheKey() && fs.existsSync(ready.image) && fs.existsSync(ready.initramfs)) return ready;
  } catch { /* not made yet */ }
  // Made beside the cache and renamed into it, so a run cut short leaves nothing half made.
  fs.mkdirSync(cacheRoot(), { recursive: true });
  const work = fs.mkdtempSync(path.join(cacheRoot(), `.${release}-`));
  try {
    const kernel = make(release, work, root);
    fs.rmSync(root, { recursive: true, force: true });
    fs.renameSync(work, root);
    fs.writeFileSync(readyFile, JSON.stringify({ ...kernel, layout: cacheKey() }, null, 1));
    return kernel;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function make(release: Release, work: string, root: string): Kernel {
  const apt = privateApt(path.join(work, 'apt'), release);
  sh('apt-get', [...apt, '-q', 'update']);
  const depends = sh('apt-cache', [...apt, 'depends', 'linux-image-amd64']);
  const image = /Depends: (linux-image-[0-9][^\s]*)/.exec(depends)?.[1];
  if (!image) throw new Error(`linux-image-amd64 of ${release} names no kernel:\n${depends}`);
  const debs = path.join(work, 'debs');
  fs.mkdirSync(debs);
  download(debs, apt, [image]);
  download(debs, [], ['busybox-static', 'kmod']);
  const kernelDeb = onlyFile(debs, `${image}_`);
  for (const [deb, into] of [[kernelDeb, 'kernel'], [onlyFile(debs, 'busybox-static_'), 'busybox'], [onlyFile(debs, 'kmod_'), 'kmod']]) {
    sh('dpkg-deb', ['-x', deb, path.join(work, into)]);
  }
  const pkg = `${image} ${sh('dpkg-deb', ['-f', kernelDeb, 'Version']).trim()}`;
  fs.rmSync(debs, { recursive: true });
  fs.rmSync(path.join(work, 'apt'), { recursive: true });

  // Trixie's package holds usr/lib/modules, bookworm's lib/modules; depmod and modprobe -d look in <base>/lib/modules.
  const kernelDir = path.join(work, 'kernel');
  if (!fs.existsSync(path.join(kernelDir, 'lib'))) fs.symlinkSync('usr/lib', path.join(kernelDir, 'lib'));
  const version = fs.readdirSync(path.join(kernelDir, 'lib', 'modules'))[0];
  const kmod = path.join(work, 'kmod', 'bin', 'kmod');
  // kmod acts by the name it is called by.
  for (const tool of ['depmod', 'modprobe']) fs.symlinkSync('kmod', path.join(work, 'kmod', 'bin', tool));
  sh(path.join(work, 'kmod', 'bin', 'depmod'), ['-b', kernelDir, version]);
  buildInitramfs(work, version, kmod);
  // Paths as they will be once `work` is renamed to `root`.
  const at = (p: string) => path.join(root, path.relative(work, p));
  return {
    release, version, package: pkg,
    image: at(path.join(kernelDir, 'boot', `vmlinuz-${version}`)),
    initramfs: at(path.join(work, 'initramfs.img')),
    modules: at(path.join(kernelDir, 'lib', 'modules', version)),
    kmod: at(kmod),
  };
}

/** busybox, stage 1 (test/vm/init.sh) and the few modules it loads (decompressed: busybox's insmod reads them plain), as a newc cpio. */
function buildInitramfs(work: string, version: string, kmod: string): void {
  const busybox = path.join(work, 'busybox', 'bin', 'busybox');
  const dir = path.join(work, 'initramfs');
  for (const d of ['bin', 'dev', 'proc', 'sys', 'modules', 'host', 'mem', 'root']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  fs.copyFileSync(busybox, path.join(dir, 'bin', 'busybox'));
  fs.chmodSync(path.join(dir, 'bin', 'busybox'), 0o755);
  for (const applet of ['sh', 'mount', 'mkdir', 'insmod', 'cat', 'ln', 'echo', 'switch_root', 'umount', 'sleep']) {
    fs.symlinkSync('busybox', path.join(dir, 'bin', applet));
  }
  fs.copyFileSync(INIT_SH, path.join(dir, 'init'));
  fs.chmodSync(path.join(dir, 'init'), 0o755);
  // In load order, dependencies first: `insmod <path>` lines of modprobe's dry run.
  const lines = sh(path.join(path.dirname(kmod), 'modprobe'), ['-d', path.join(work, 'kernel'), '-S', version, '--show-depends', '-a', ...STAGE1_MODULES]);
  const order: string[] = [];
  for (const m of lines.matchAll(/^insmod (\S+)/gm)) {
    const name = path.basename(m[1]).replace(/\.(xz|zst|gz)$/, '');
    if (order.includes(name)) continue;
    const plain = m[1].endsWith('.xz') ? execFileSync(busybox, ['unxz', '-c', m[1]], { maxBuffer: 64 << 20 }) : fs.readFileSync(m[1]);
    fs.writeFileSync(path.join(dir, 'modules', name), plain);
    order.push(name);
  }
  fs.writeFileSync(path.join(dir, 'modules', 'order'), order.join('\n') + '\n');
  const list = sh('sh', ['-c', 'cd "$1" && find .', 'sh', dir]);
  const cpio = execFileSync(busybox, ['cpio', '-o', '-H', 'newc'], { cwd: dir, input: list, maxBuffer: 256 << 20, stdio: ['pipe', 'pipe', 'ignore'] });
  fs.writeFileSync(path.join(work, 'initramfs.img'), cpio);
}
