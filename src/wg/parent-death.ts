// wireguard-go must end with wgcpd: a daemon killed without cleanup (SIGKILL, the OOM killer)
// would otherwise leave its tunnels serving, reparented to init, with nobody keeping them to
// the database. The kernel's parent-death signal (PR_SET_PDEATHSIG) does it; Node cannot set
// it on a child without a native addon, so util-linux's `setpriv --pdeathsig KILL` sets it
// and then execs wireguard-go (same pid, nothing stays between). Without setpriv (a bare
// OpenWrt) the child runs as before: systemd's cgroup or procd ends it, and the next start
// deletes wgcp's own left-over links, which ends their wireguard-go (docs/kernel.md).
import { spawnSync } from 'node:child_process';

let wrapper: string[] | null | undefined;

/** The command prefix that makes a child die with this process, or [] when none is available. */
export function parentDeathPrefix(): string[] {
  if (wrapper === undefined) {
    const probe = spawnSync('setpriv', ['--pdeathsig', 'KILL', 'true'], { stdio: 'ignore', timeout: 2000 });
    wrapper = probe.status === 0 ? ['setpriv', '--pdeathsig', 'KILL'] : null;
  }
  return wrapper ?? [];
}
