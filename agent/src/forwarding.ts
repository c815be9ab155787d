// A device with a LAN behind it (`networks` in its configuration) routes between that LAN and
// the tunnel: the kernel must forward packets, which Linux leaves off by default. The agent
// turns it on for the families its networks use, and never off again (other services of the
// device, a router's own setup, may rely on it too).
import fs from 'node:fs';

const SWITCHES = { '-4': '/proc/sys/net/ipv4/ip_forward', '-6': '/proc/sys/net/ipv6/conf/all/forwarding' } as const;

/** The /proc/sys files to set to 1 for these networks. */
export function forwardingSwitches(networks: readonly string[]): string[] {
  const families = new Set(networks.map((n) => (n.includes(':') ? '-6' : '-4') as '-4' | '-6'));
  return [...families].sort().map((f) => SWITCHES[f]);
}

/** Sets each switch to 1 where it is not; returns the ones it could not set, with why. */
export function enableForwarding(networks: readonly string[], write: (file: string) => void = (f) => fs.writeFileSync(f, '1\n')): string[] {
  const problems: string[] = [];
  for (const file of forwardingSwitches(networks)) {
    try {
      if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim() === '1') continue;
      write(file);
    } catch (err) {
      problems.push(`${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return problems;
}
