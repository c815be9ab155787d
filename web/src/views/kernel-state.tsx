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
