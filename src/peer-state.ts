// A peer's state, one rule a place, for the operations, the jobs, the store's SQL and the
// metrics alike: why it is off (its reasons, each added and lifted by its own owner, and
// `enabled`, which follows them), its data limit, and when its usage baseline is forgotten.
import { DISABLE_REASONS, type DisableReason, type PeerRecord } from './resources/peer';

// ---- Enabled and its reasons ----

/** The reasons in their one canonical order (the stored and shown form). */
export function canonicalReasons(reasons: Iterable<DisableReason>): DisableReason[] {
  const set = new Set(reasons);
  return DISABLE_REASONS.filter((r) => set.has(r));
}

/** A peer is enabled exactly when no reason holds it off (the store writes `enabled` from this too). */
export const enabledBy = (reasons: readonly DisableReason[]): boolean => reasons.length === 0;

/** The peer with `reason` added; `enabled` follows the set. */
export function withReason(peer: PeerRecord, reason: DisableReason): PeerRecord {
  const disabledReasons = canonicalReasons([...peer.disabledReasons, reason]);
  return { ...peer, disabledReasons, enabled: false };
}

/** The peer with `reason` lifted; it is enabled only when no other reason holds it. */
export function withoutReason(peer: PeerRecord, reason: DisableReason): PeerRecord {
  const disabledReasons = peer.disabledReasons.filter((r) => r !== reason);
  return { ...peer, disabledReasons, enabled: enabledBy(disabledReasons) };
}

export const hasReason = (peer: Pick<PeerRecord, 'disabledReasons'>, reason: DisableReason): boolean => peer.disabledReasons.includes(reason);

// ---- The data limit ----
// Its rule (tenths of a GiB, the contract's whole GB, over from the limit's first byte) is
// src/data-limit.ts, a module that imports nothing: the page bundles it too and judges a
// limit as wgcpd does. Here for the places that ask a peer's state.
export { GB, MAX_LIMIT_GB, isOverLimit, isTenthsLimit, limitBytes, limitTenths, overLimitSql, wholeGB } from './data-limit';

// ---- The usage baseline ----

/**
 * True when a change takes the peer off its interface, where its counters are gone: its
 * usage baseline is then forgotten (in the change's commit), and its counters start from zero
 * when it returns. A peer off before and after keeps what it has (nothing to forget: it was
 * forgotten when it left).
 */
export const leavesInterface = (before: Pick<PeerRecord, 'enabled'> | null, after: Pick<PeerRecord, 'enabled'>): boolean =>
  !after.enabled && (before === null || before.enabled);
