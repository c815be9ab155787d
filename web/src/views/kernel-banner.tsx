// Says on every view when changes are not reaching the kernel: the backend is off (all is
// stored, nothing applied), or servers could not be brought up, with why. Read from
// /healthz, defensively: its fields grow with the daemon's version.
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { useLive } from '../live';
import { useThrottled } from '../load';
import { href } from '../router';
import { t } from '../i18n';
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
    <section class="banner" aria-label={t('kernel.banner')} role="status">
      {off && (
        <p><strong>{t('kernel.off')}</strong> {t('kernel.offTo')}
          {health.kernelReason ? <> {t('kernel.why', { reason: health.kernelReason })}</> : null}</p>
      )}
      {failures.map((f) => (
        <p key={f.serverID}><strong>{t('kernel.server')} <ServerCrumb id={f.serverID} to={href('servers', f.serverID)} /> ({f.interface}) {t('kernel.notUp')}</strong> {f.reason}.
          {' '}{t('kernel.notUpThen')}</p>
      ))}
      {!off && failures.length === 0 && <p><strong>{t('kernel.degraded')}</strong> {t('kernel.degradedText')}</p>}
    </section>
  );
}
