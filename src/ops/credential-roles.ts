// Changing the role of an API key or access token. Its page sessions follow at once: a
// session's role is read from its credential on every request. Audited in the same
// transaction.
import type { App } from '../app';
import type { Actor } from '../store/audit';
import type { CredentialInfo, CredentialKind } from '../store/credentials';
import type { Role } from '../store/roles';

/** The credential with its new role, or null when no credential of that kind has this id. */
export function setCredentialRole(app: App, actor: Actor, kind: CredentialKind, id: number, role: Role): CredentialInfo | null {
  const now = app.now().toISOString();
  return app.store.tx(() => {
    const before = app.store.credentials.get(id);
    if (before === null || before.kind !== kind || !app.store.credentials.setRole(kind, id, role)) return null;
    app.store.audit.append({ at: now, actor, action: `${kind}.role`, targetType: kind, targetId: id, summary: { name: before.name, from: before.role, to: role } });
    return app.store.credentials.get(id);
  });
}
