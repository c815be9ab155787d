// One presenter per event kind: the same shape wherever the change came from (the API, a
// job, provisioning, an import). None carries a webhook, a private or preshared key, a
// token, an SMTP password or a whole device id (device ids are cut to a prefix on record).
import type { ServerKernelState } from '../kernel/plane';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { presentPeer, presentServerSummary } from './present';

/** peerCreated, peerUpdated, peerDeleted, peerRestricted, peerExpired. */
export function peerEventData(server: Pick<ServerRecord, 'mode'>, peer: PeerRecord, extra: { change?: string; source?: string } = {}) {
  return { mode: server.mode, peer: presentPeer(peer), ...extra };
}

/** kernelDrift: what the reconciler found different in the kernel and put right (counts by kind, never keys). */
export function kernelDriftEventData(found: { kind: string; interface: string | null; counts: Record<string, number>; items: number }[]) {
  const kinds: Record<string, number> = {};
  for (const f of found) kinds[f.kind] = (kinds[f.kind] ?? 0) + f.items;
  return { repairs: found.reduce((n, f) => n + f.items, 0), kinds, findings: found.map((f) => ({ kind: f.kind, interface: f.interface, counts: f.counts })) };
}

/** serverChanged: created, updated or deleted. */
export function serverEventData(change: 'created' | 'updated' | 'deleted', server: ServerRecord, kernel: ServerKernelState) {
  return { change, server: presentServerSummary(server, kernel) };
}
