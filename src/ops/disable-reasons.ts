// Why a peer is off, as a set: each decision (an admin's disable, a device suspension, the
// data limit) is added and lifted by its own owner, so lifting one never lifts another.
import { DISABLE_REASONS, type DisableReason, type PeerRecord } from '../store/peers';

/** The reasons in their one canonical order (the stored and shown form). */
export function canonicalReasons(reasons: Iterable<DisableReason>): DisableReason[] {
  const set = new Set(reasons);
  return DISABLE_REASONS.filter((r) => set.has(r));
}

/** The peer with `reason` added; `enabled` follows the set. */
export function withReason(peer: PeerRecord, reason: DisableReason): PeerRecord {
  const disabledReasons = canonicalReasons([...peer.disabledReasons, reason]);
  return { ...peer, disabledReasons, enabled: false };
}

/** The peer with `reason` lifted; it is enabled only when no other reason holds it. */
export function withoutReason(peer: PeerRecord, reason: DisableReason): PeerRecord {
  const disabledReasons = peer.disabledReasons.filter((r) => r !== reason);
  return { ...peer, disabledReasons, enabled: disabledReasons.length === 0 };
}

export const hasReason = (peer: Pick<PeerRecord, 'disabledReasons'>, reason: DisableReason): boolean => peer.disabledReasons.includes(reason);
