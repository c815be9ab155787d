// How a server stands in the kernel, in words: a failed server says why and when it is
// tried again, on the page itself (not only in a tooltip).
import { formatDate } from '../format';
import { currentLanguage, t } from '../i18n';
import type { Server } from '../types';

const words = (state: string): string => (state === 'up' ? t('kernel.up') : state === 'off' ? t('kernel.stateOff') : state === 'failed' ? t('kernel.failed') : state);

export function KernelState({ server }: { server: Pick<Server, 'kernelState' | 'kernelFailure'> }) {
  const f = server.kernelFailure;
  if (server.kernelState !== 'failed' || !f) return <>{words(server.kernelState)}</>;
  return (
    <span class="kernel-failed">
      <span class="bad">{t('kernel.failed')}</span>: <span class="reason">{f.reason}</span>
      {f.nextRetryAt && <span class="hint"> ({t('kernel.retry', { when: formatDate(f.nextRetryAt) })})</span>}
    </span>
  );
}

const kindWords = (kind: string): string => ({ peer: t('kernel.kindPeer'), link: t('kernel.kindLink'), nft: t('kernel.kindNft'), ipv6: t('kernel.kindIpv6') })[kind] ?? kind;

/** The reconciler's last repair in words: "2 peers, 1 packet filter". */
export function repairWords(kinds: Record<string, number>): string {
  return Object.entries(kinds).map(([k, n]) => `${n.toLocaleString(currentLanguage())} ${kindWords(k)}`).join(', ') || t('kernel.nothing');
}
