// What the CLI can truthfully say after a restore or an import: wgcpd writes how its kernel
// backend stands (on or off and why, servers that failed) to <dataDir>/wgcpd.kernel at every
// start, before its pid file, so the CLI that waited for the new pid file reads this start's.
import fs from 'node:fs';
import path from 'node:path';

export const KERNEL_FILE = 'wgcpd.kernel';

export interface KernelReport {
  state: 'on' | 'off';
  reason?: string;
  failed: { serverId: number; interface: string; reason: string }[];
}

export function writeKernelReport(dataDir: string, report: KernelReport): void {
  const file = path.join(dataDir, KERNEL_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(report) + '\n', { mode: 0o644 });
  fs.renameSync(tmp, file);
}

/** The last start's report, or null when there is none (an older wgcpd) or it cannot be read. */
export function readKernelReport(dataDir: string): KernelReport | null {
  try {
    const r = JSON.parse(fs.readFileSync(path.join(dataDir, KERNEL_FILE), 'utf8')) as KernelReport;
    return r.state === 'on' || r.state === 'off' ? { ...r, failed: Array.isArray(r.failed) ? r.failed : [] } : null;
  } catch {
    return null;
  }
}

/**
 * Where `what` (the restored state, the imported server) stands after wgcpd started again:
 * in the kernel, stored only (the backend is off), or in the kernel but for failed servers.
 * `serverId` narrows the failures to one server (an import).
 */
export function kernelOutcome(report: KernelReport | null, what: string, serverId?: number): string {
  if (report === null) return `wgcpd did not say how its kernel backend stands: see its log or GET /healthz for whether the kernel holds ${what}`;
  if (report.state === 'off') {
    return `wgcpd's kernel backend is off${report.reason ? ` (${report.reason})` : ''}: ${what} is stored, not applied to WireGuard or nftables`;
  }
  const failed = report.failed.filter((f) => serverId === undefined || f.serverId === serverId);
  if (failed.length === 0) return `the kernel holds ${what}`;
  const list = failed.map((f) => `server ${f.serverId} (${f.interface}): ${f.reason}`).join('; ');
  return `the kernel holds ${what} except ${failed.length === 1 ? 'a server that failed' : `${failed.length} servers that failed`} (wgcpd retries): ${list}`;
}
