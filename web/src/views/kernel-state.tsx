// How a server stands in the kernel, in words: a failed server says why and when it is
// tried again, on the page itself (not only in a tooltip).
import { formatDate } from '../format';
import type { Server } from '../types';

const WORDS: Record<string, string> = { up: 'up', off: 'off: stored, not applied', failed: 'failed' };

export function KernelState({ server }: { server: Pick<Server, 'kernelState' | 'kernelFailure'> }) {
  const f = server.kernelFailure;
  if (server.kernelState !== 'failed' || !f) return <>{WORDS[server.kernelState] ?? server.kernelState}</>;
  return (
    <span class="kernel-failed">
      <span class="bad">failed</span>: <span class="reason">{f.reason}</span>
      {f.nextRetryAt && <span class="hint"> (tried again {formatDate(f.nextRetryAt)})</span>}
    </span>
  );
}

const KIND_WORDS: Record<string, string> = { peer: 'peers', link: 'interface', nft: 'packet filter', ipv6: 'IPv6 forwarding' };

/** The reconciler's last repair in words: "2 peers, 1 packet filter". */
export function repairWords(kinds: Record<string, number>): string {
  return Object.entries(kinds).map(([k, n]) => `${n} ${KIND_WORDS[k] ?? k}`).join(', ') || 'nothing';
}
