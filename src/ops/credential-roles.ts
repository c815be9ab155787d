// Changing the role of an API key or access token (the API and `wgcp apikey|token role`).
// Its page sessions follow at once: a session's role is read from its credential on every
// request. Audited in the same transaction.
import type { Actor } from '../store/audit';
import type { CredentialInfo, CredentialKind } from '../store/credentials';
import type { Role } from '../store/roles';
import type { Store } from '../store/store';

/** The credential with its new role, or null when no credential of that kind has this id. */
export function setCredentialRole(store: Store, actor: Actor, kind: CredentialKind, id: number, role: Role, now: Date): CredentialInfo | null {
  return store.tx(() => {
    const before = store.credentials.get(id);
    if (before === null || before.kind !== kind || !store.credentials.setRole(kind, id, role)) return null;
    store.audit.append({ at: now.toISOString(), actor, action: `${kind}.role`, targetType: kind, targetId: id, summary: { name: before.name, from: before.role, to: role } });
    return store.credentials.get(id);
  });
}
