// Records as the API shows them: contract field names, secrets left out or masked.
import type { PeerRecord } from '../store/peers';
import { PEER } from '../resources/peer';
import { SERVER } from '../resources/server';
import type { ServerRecord } from '../store/servers';
import type { ServerKernelState } from '../kernel/plane';
import type { SmtpRecord } from '../store/smtp';
import type { WebhookRecord } from '../store/webhooks';
import { MASK, present, type Role } from '../resources/describe';
import { WEBHOOK } from '../resources/webhook';

export { MASK };

/** A peer as the API shows it (every role sees the same fields: resources/peer.ts). */
export function presentPeer(p: PeerRecord) {
  return present(PEER, p, 'viewer');
}

/** A webhook as `role` sees it (resources/webhook.ts: its URL, headers and templates whole for admins only); no role: the least. */
export function presentWebhook(w: WebhookRecord, role: Role | null | undefined) {
  return present(WEBHOOK, w, role ?? 'viewer');
}

/** A server's standing in the kernel, as the API shows it. */
export function presentKernelState(k: ServerKernelState) {
  const lastKernelRepair = k.lastRepair ?? null;
  if (k.state !== 'failed') return { kernelState: k.state, kernelFailure: null, lastKernelRepair };
  return { kernelState: k.state, kernelFailure: { reason: k.reason, since: k.since, attempts: k.attempts, nextRetryAt: k.nextRetryAt }, lastKernelRepair };
}

/** A server as the API shows it (resources/server.ts), with its kernel state, peers and webhooks. */
export function presentServer(s: ServerRecord, peers: PeerRecord[], webhooks: WebhookRecord[], kernel: ServerKernelState, role: Role | null | undefined) {
  return present(SERVER, s, 'viewer', { kernel: presentKernelState(kernel), peers: peers.map(presentPeer), webhooks: webhooks.map((w) => presentWebhook(w, role)) });
}

export function presentSmtp(s: SmtpRecord) {
  return { ...s, password: s.password === '' ? '' : MASK };
}

/** A server as events show it: its own fields and kernel state, never its peers or its webhooks (their urls, headers and secrets). */
export function presentServerSummary(s: ServerRecord, kernel: ServerKernelState) {
  return present(SERVER, s, 'viewer', { kernel: presentKernelState(kernel) });
}
