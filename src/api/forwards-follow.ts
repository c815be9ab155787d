// Keeps the kernel's forwards in step when the peer behind them changes outside the
// forwards API: a deleted peer takes its forwards along, a moved peer moves their target.
// Called inside the caller's transaction, like every kernel apply.
import type { App } from '../app';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';

/** Call before deleting `before` (after === null), or after storing its new address. */
export function forwardsFollowPeer(app: App, server: ServerRecord, before: PeerRecord, after: PeerRecord | null): void {
  if (after !== null && after.ip === before.ip) return;
  for (const f of app.store.forwards.kernelForwardsOfPeer(before.id)) {
    if (after === null) app.kernel.applyForward({ server, before: f, after: null });
    else app.kernel.applyForward({ server, before: { ...f, targetIp: before.ip }, after: { ...f, targetIp: after.ip } });
  }
}
