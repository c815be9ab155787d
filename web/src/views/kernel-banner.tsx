// Says on every view when changes are not reaching the kernel: the backend is off (all is
// stored, nothing applied), or servers could not be brought up, with why. Read from
// /healthz, defensively: its fields grow with the daemon's version.
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { useLive } from '../live';
import { useThrottled } from '../load';
import { href } from '../router';
import type { Health } from '../types';
import { ServerCrumb } from './server-crumb';

export function KernelBanner({ route }: { route: string }) {
  const [health, setHealth] = useState<Health | null>(null);
  const load = () => { get<Health>('/healthz').then(setHealth, () => {}); };
  const reload = useThrottled(load, 1000);
  useEffect(load, [route]);
  useLive((e) => { if (e.event === 'serverChanged') reload(); }, [reload]);
  if (!health) return null;
  const off = health.kernel === 'off';
  const failures = Array.isArray(health.failures) ? health.failures : [];
  if (!off && failures.length === 0 && health.status !== 'degraded') return null;
  return (
    <section class="banner" aria-label="Kernel backend" role="status">
      {off && (
        <p><strong>The kernel backend is off: changes are stored but not applied</strong> to WireGuard or the firewall.
          {health.kernelReason ? <> Why: {health.kernelReason}.</> : null}</p>
      )}
      {failures.map((f) => (
        <p key={f.serverID}><strong>Server <ServerCrumb id={f.serverID} to={href('servers', f.serverID)} /> ({f.interface}) could not be brought up:</strong> {f.reason}.
          Its changes are stored and applied once it comes up.</p>
      ))}
      {!off && failures.length === 0 && <p><strong>wgcpd reports a problem</strong> (/healthz says degraded): changes may not be applied.</p>}
    </section>
  );
}
