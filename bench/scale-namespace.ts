// Runs a bench script again inside a network namespace of its own, with a private
// /run/wireguard (wireguard-go's sockets), then removes the namespace and whatever still
// runs in it. The script sees `--inside` among its arguments.
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import { probeKernel } from '../src/kernel/probe';

export function runInNamespace(script: string, label: string): void {
  const ns = `wgcp${label}${process.pid}`;
  execFileSync('ip', ['netns', 'add', ns]);
  try {
    execFileSync('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    const mount = 'mkdir -p /run/wireguard && mount -t tmpfs wgcp-bench-run /run/wireguard && exec "$@"';
    const res = spawnSync('ip', ['netns', 'exec', ns, 'unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', mount, 'sh',
      process.execPath, script, '--inside', ...process.argv.slice(2)], { stdio: 'inherit' });
    if (res.status !== 0) process.exitCode = 1;
  } finally {
    for (const pid of spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout.split(/\s+/).filter(Boolean)) {
      try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ }
    }
    execFileSync('ip', ['netns', 'del', ns]);
  }
}

/** What the bench ran on: written beside every table. */
export function machineLines(): string[] {
  const tool = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  // The daemon's own choice: the kernel's module where it loads (a real router, the VM tier), else wireguard-go.
  const probe = probeKernel();
  const wireguard = !probe.ok ? `no WireGuard (${probe.reason})` : probe.wireguard === 'kernel' ? 'the kernel\'s WireGuard module' : 'wireguard-go';
  return [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${os.cpus()[0]?.model ?? 'unknown CPU'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Linux ${os.release()}`,
    `- tools: node ${process.version}, ${tool('nft', ['--version'])}, ${tool('wg', ['--version']).split(' - ')[0]}, ${wireguard}`,
  ];
}
