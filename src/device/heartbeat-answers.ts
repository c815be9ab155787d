// The heartbeat's answer depends only on stored rows (device, peer, server, forwards), and
// a device asks for it every 30 s while those rows change rarely. So the answer text is
// kept per device and used while the store's revision() is the one it was made at; any
// change to the data drops every kept answer. Heartbeat reports do not count as changes.
import type { Store } from '../store/store';
import type { HeartbeatView } from '../store/devices';
import { forwardsHashOfJson } from './forwards-hash';
import { deviceTunnel } from '../views/devices-present';
import { splitList } from '../wg/client-options';

/**
 * What a heartbeat needs to decide its answer; body is null when the peer has no stored
 * private key. `networks`: the peer's networks in one canonical text (sameNetworks), so a
 * heartbeat that reports the same ones is told apart without a read.
 */
export interface HeartbeatAnswer { suspended: boolean; body: string | null; networks: string }

/** One text for a set of prefixes, whatever their order. */
export const canonicalNetworks = (networks: readonly string[]): string => [...networks].sort().join(',');

/** The JSON text of a heartbeat answer (the contract's 200 body). Pure. */
export function renderHeartbeatAnswer(deviceId: string, view: HeartbeatView): string | null {
  const { privateKey } = view;
  if (privateKey === null) return null;
  return JSON.stringify({
    device_id: deviceId,
    status: 'ok',
    ...deviceTunnel({ ...view, privateKey }),
    forwards_hash: forwardsHashOfJson(view.forwardsJson),
  });
}

export class HeartbeatAnswers {
  private readonly kept = new Map<string, HeartbeatAnswer>();
  private revision = -1;

  /** limit: answers kept at most (WGCP_HEARTBEAT_CACHE); 0 keeps none. */
  constructor(private readonly store: Store, private readonly limit: number) {}

  /** The answer for a (lower-case) device id, or undefined for an unknown device. */
  get(deviceId: string): HeartbeatAnswer | undefined {
    const revision = this.store.revision();
    if (revision !== this.revision) {
      this.kept.clear();
      this.revision = revision;
    } else {
      const kept = this.kept.get(deviceId);
      if (kept) return kept;
    }
    const view = this.store.devices.heartbeatView(deviceId);
    if (!view) return undefined;
    const answer = { suspended: view.suspended, body: renderHeartbeatAnswer(deviceId, view), networks: canonicalNetworks(splitList(view.networks)) };
    if (this.limit === 0) return answer;
    // Oldest first out: Map keeps insertion order.
    if (this.kept.size >= this.limit) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(deviceId, answer);
    return answer;
  }

  get size(): number { return this.kept.size; }
}
