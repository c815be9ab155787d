// Who may delete a peer, in one place. A change whose effect is a deletion needs this role
// whatever route it comes by: `DELETE /api/peers/{id}`, a device removed with its peer
// (both declare it where they are defined, src/api/peers.ts and devices.ts), and an expiry that the expiry job will act on. An
// operator may hand out a new peer with an expiry (nothing that exists is deleted sooner),
// clear an expiry or postpone one; setting an expiry on a peer that had none, or bringing
// one nearer, is scheduling that peer's deletion.
import { apiError } from '../error-registry';
import type { Actor } from '../store/audit';
import { roleAllows, type Role } from '../store/roles';

export const PEER_DELETE_ROLE: Role = 'admin';

const noExpiry = (at: string | null): boolean => at === null || at === '';

/** True when moving a peer's expiry from `before` to `after` brings its deletion nearer (or schedules one). */
export function bringsDeletionNearer(before: string | null, after: string | null): boolean {
  if (noExpiry(after)) return false;
  return noExpiry(before) || Date.parse(after!) < Date.parse(before!);
}

/**
 * 403 naming the role, unless `actor` may delete peers. Callers without a role (the
 * daemon's own jobs) and without an actor are the daemon itself: they pass.
 */
export function requirePeerDeleteRight(actor: Actor | undefined, field: string, why: string): void {
  if (!actor || actor.role === null || roleAllows(actor.role, PEER_DELETE_ROLE)) return;
  throw apiError('WGCP_FORBIDDEN_PEER_DELETE', { role: PEER_DELETE_ROLE, why }, { role: PEER_DELETE_ROLE, field });
}
