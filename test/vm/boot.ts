// Runs one command as root under a real Debian kernel in a throw-away QEMU guest that sees
// this machine's own files: the host's / read-only under an in-memory overlay (test/vm/init.sh),
// so node, ip, wg, nft, tc and this checkout are there as they are here, and nothing the
// guest writes reaches the host but the run folder, shared read-write over 9p, where the
// command's output and exit status come back. The guest powers off when the command ends.
//
// KVM when /dev/kvm opens and is a hardware one (a few seconds to boot), else TCG, pure
// emulation (slower, ~30x for Node). Only root can share / over 9p with the files' owners kept.
//
//   node dist/test/vm/boot.js [--release trixie|bookworm] [--timeout S] [--mem 2G] [--cpus N] [--tcg] -- COMMAND [ARGS...]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheRoot, prepareKernel, RELEASES, type Kernel, type Release } from './kernel-cache';

export interface BootOptions {
  release: Release;
  command: string[];
  cwd?: string;
  /** Variables the command gets besides PATH, HOME and LANG. */
  env?: Record<string, string>;
  timeoutMs?: number;
  mem?: string;
  cpus?: number;
  /** Emulate even when KVM is there (to measure TCG). */
  forceTcg?: boolean;
}

export interface BootResult {
  kernel: Kernel;
  accel: 'kvm' | 'tcg';
  /** Why this accelerator: KVM, or why not. */
  accelNote?: string;
  /** The command's exit status; null when the guest stopped without one (see console). */
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** The guest's serial console: the kernel's log. */
  console: string;
  /** ms from QEMU's start to the command's start, and to the guest's power-off. */
  commandStartMs: number | null;
  totalMs: number;
  /** The run folder, for files the command left there (removed by cleanup()). */
  runDir: string;
  cleanup(): void;
}

/** Why the tier cannot run here, or null when it can. */
export function vmUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'it needs root (the host\'s / is shared into the guest over 9p with owners kept)';
  for (const tool of ['qemu-system-x86_64', 'apt-get', 'dpkg-deb']) {
    if (!(process.env.PATH ?? '').split(':').some((d) => fs.existsSync(path.join(d, tool)))) return `missing tool: ${tool} (apt-get install qemu-system-x86)`;
  }
  return null;
}

/**
 * Why KVM cannot run Debian's kernel here, or null when it may. /dev/kvm must open, and be
 * a hardware KVM (kvm_intel or kvm_amd): cloud VMs may offer kvm_pvm instead (Pagetable-based
 * VM, nested without hardware support), which boots only PVM-enabled guest kernels; Debian's
 * dies in its instruction emulator ("kvm-pvm: INTERNAL_ERROR in batch emul").
 */
export function kvmUnusable(): string | null {
  try {
    fs.closeSync(fs.openSync('/dev/kvm', 'r+'));
  } catch (err) {
    return `/dev/kvm cannot be opened (${(err as NodeJS.ErrnoException).code})`;
  }
  if (fs.existsSync('/sys/module/kvm_intel') || fs.existsSync('/sys/module/kvm_amd')) return null;
  if (fs.existsSync('/sys/module/kvm_pvm')) return '/dev/kvm is kvm_pvm, which boots only PVM guest kernels, not Debian\'s';
  return null;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Stage 2, PID 1 in the guest's real root: the command as its child, then power off. */
function stage2(opts: BootOptions): string {
  const env = { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/root', LANG: 'C.UTF-8', ...opts.env };
  return [
    '# Written by test/vm/boot.ts: the command, its output and status into the run folder, then power off.',
    ...Object.entries(env).map(([k, v]) => `export ${k}=${quote(v)}`),
    'R=/run/wgcp-vm',
    'ip link set lo up',
    ': > $R/started',
    `( cd ${quote(opts.cwd ?? process.cwd())} && exec ${opts.command.map(quote).join(' ')} ) > $R/stdout 2> $R/stderr < /dev/null`,
    'echo $? > $R/code',
    'sync',
    'echo o > /proc/sysrq-trigger',
    'sleep 30',
    '',
  ].join('\n');
}

/**
 * Boots with KVM when /dev/kvm opens, and falls back to TCG when the guest fails there before
 * the command starts: under nested virtualisation (a cloud VM's KVM, as on this project's
 * machines) KVM may have to emulate an instruction its emulator lacks (the kernel's zstd
 * decompressor's BMI2 `shlx`: "emulation failure", QEMU aborts at once). `accelNote` says why.
 */
export async function bootAndRun(opts: BootOptions): Promise<BootResult> {
  prepareKernel(opts.release);
  const noKvm = opts.forceTcg ? 'TCG asked for' : kvmUnusable();
  if (noKvm) return { ...(await bootOnce(opts, 'tcg')), accelNote: `TCG: ${noKvm}` };
  // A failed KVM costs up to the start limit: the verdict is kept beside the kernel, per machine.
  const verdictFile = path.join(cacheRoot(), opts.release, 'kvm-failed');
  if (fs.existsSync(verdictFile)) {
    return { ...(await bootOnce(opts, 'tcg')), accelNote: `TCG: KVM failed with this kernel here before (${fs.readFileSync(verdictFile, 'utf8').trim()}; remove ${verdictFile} to try again)` };
  }
  const kvm = await bootOnce(opts, 'kvm');
  if (kvm.commandStartMs !== null) return { ...kvm, accelNote: 'KVM' };
  kvm.cleanup();
  const why = /emulation failure|failed to set MSR[^\n]*|KVM[^\n]*/.exec(kvm.console)?.[0] ?? (kvm.timedOut ? 'the guest did not start in time' : 'the guest stopped before the command');
  fs.writeFileSync(verdictFile, `${why}\n`);
  return { ...(await bootOnce(opts, 'tcg')), accelNote: `KVM failed (${why}), fell back to TCG` };
}

async function bootOnce(opts: BootOptions, accel: 'kvm' | 'tcg'): Promise<BootResult> {
  const kernel = prepareKernel(opts.release);
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-vm-'));
  fs.writeFileSync(path.join(runDir, 'stage2.sh'), stage2(opts));
  const share = (tag: string, dir: string, readonly: boolean): string[] => [
    '-fsdev', `local,id=${tag},path=${dir},security_model=passthrough,multidevs=remap${readonly ? ',readonly=on' : ''}`,
    '-device', `virtio-9p-pci,fsdev=${tag},mount_tag=${tag}`,
  ];
  const append = [...(process.env.WGCP_VM_VERBOSE ? ['earlyprintk=serial,ttyS0,115200'] : []), 'console=ttyS0', ...(process.env.WGCP_VM_VERBOSE ? [] : ['quiet', 'loglevel=4']), 'panic=-1', 'mitigations=off',
    `WGCP_VM_MODULES=${kernel.modules}`, `WGCP_VM_KMOD=${kernel.kmod}`].join(' ');
  const args = [
    '-nodefaults', '-no-user-config', '-display', 'none', '-no-reboot',
    '-machine', 'q35', ...(accel === 'kvm' ? ['-accel', 'kvm', '-cpu', 'host,-arch-capabilities'] : ['-accel', 'tcg,thread=multi', '-cpu', 'max']),
    '-smp', String(opts.cpus ?? 2), '-m', opts.mem ?? '2G',
    '-kernel', kernel.image, '-initrd', kernel.initramfs, '-append', append,
    '-serial', `file:${path.join(runDir, 'console.log')}`,
    '-device', 'virtio-rng-pci',
    ...share('hostroot', '/', true), ...share('vmrun', runDir, false),
  ];
  const t0 = Date.now();
  let commandStartMs: number | null = null;
  const child = spawn('qemu-system-x86_64', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let qemuErr = '';
  child.stderr!.on('data', (d: Buffer) => { qemuErr += d.toString(); });
  const watch = setInterval(() => {
    if (commandStartMs === null && fs.existsSync(path.join(runDir, 'started'))) commandStartMs = Date.now() - t0;
  }, 100);
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, opts.timeoutMs ?? 10 * 60_000);
  // A KVM guest that has not started the command in 30 s is stuck (TCG starts it in ~10-20 s).
  const startLimit = accel === 'kvm' ? setTimeout(() => { if (commandStartMs === null) { timedOut = true; child.kill('SIGKILL'); } }, 30_000) : undefined;
  const spawnError = await new Promise<Error | null>((resolve) => {
    child.once('error', resolve);
    child.once('exit', () => resolve(null));
  });
  clearTimeout(timer);
  clearTimeout(startLimit);
  clearInterval(watch);
  const totalMs = Date.now() - t0;
  const read = (f: string): string => { try { return fs.readFileSync(path.join(runDir, f), 'utf8'); } catch { return ''; } };
  const codeText = read('code').trim();
  return {
    kernel, accel, timedOut, commandStartMs, totalMs, runDir,
    code: codeText === '' ? null : Number(codeText),
    stdout: read('stdout'),
    stderr: read('stderr'),
    console: read('console.log') + (qemuErr ? `\n[qemu] ${qemuErr}` : '') + (spawnError ? `\n[spawn] ${spawnError.message}` : ''),
    cleanup: () => fs.rmSync(runDir, { recursive: true, force: true }),
  };
}

async function main(argv: string[]): Promise<void> {
  const sep = argv.indexOf('--');
  const flags = sep < 0 ? argv : argv.slice(0, sep);
  const command = sep < 0 ? [] : argv.slice(sep + 1);
  const flag = (name: string): string | undefined => { const i = flags.indexOf(name); return i < 0 ? undefined : flags[i + 1]; };
  const release = (flag('--release') ?? 'trixie') as Release;
  if (!command.length || !(release in RELEASES)) {
    console.error('usage: boot.js [--release trixie|bookworm] [--timeout S] [--mem 2G] [--cpus N] [--tcg] -- COMMAND [ARGS...]');
    process.exit(2);
  }
  const why = vmUnavailable();
  if (why) { console.error(`cannot boot: ${why}`); process.exit(125); }
  const r = await bootAndRun({
    release, command, timeoutMs: Number(flag('--timeout') ?? 600) * 1000, mem: flag('--mem'),
    cpus: flag('--cpus') ? Number(flag('--cpus')) : undefined, forceTcg: flags.includes('--tcg'),
  });
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  console.error(`wgcp-vm: ${r.kernel.package} (${r.kernel.version}), ${r.accel} (${r.accelNote}): command started at ${((r.commandStartMs ?? NaN) / 1000).toFixed(1)} s, guest off at ${(r.totalMs / 1000).toFixed(1)} s`);
  if (r.code === null) console.error(`wgcp-vm: the guest stopped without the command's status${r.timedOut ? ' (timed out)' : ''}; its console:\n${r.console.split('\n').slice(-40).join('\n')}`);
  r.cleanup();
  process.exit(r.code ?? 125);
}

if (require.main === module) void main(process.argv.slice(2));
