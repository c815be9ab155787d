// One presenter per event kind: the same shape wherever the change came from (the API, a
// job, provisioning, an import). None carries a webhook, a private or preshared key, a
// token, an SMTP password or a whole device id (device ids are cut to a prefix on record).
import type { ServerKernelState } from '../kernel/plane';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { presentPeer, presentServerSummary } from './present';

/** peerCreated, peerUpdated, peerDeleted, peerRestricted, peerExpired. */
export function peerEventData(server: Pick<ServerRecord, 'mode'>, peer: PeerRecord, extra: { change?: string } = {}) {
  return { mode: server.mode, peer: presentPeer(peer), ...extra };
}

/** serverChanged: created, updated or deleted. */
export function serverEventData(change: 'created' | 'updated' | 'deleted', server: ServerRecord, kernel: ServerKernelState) {
  return { change, server: presentServerSummary(server, kernel) };
}
