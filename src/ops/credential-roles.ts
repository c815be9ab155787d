// Changing the role of an API key or access token (the API and `wgcp apikey|token role`).
// Its page sessions follow at once: a session's role is read from its credential on every
// request. A change of the runner, audited. The last admin keeps its role (last-admin.ts).
import type { Actor } from '../store/audit';
import type { CredentialInfo, CredentialKind } from '../store/credentials';
import type { Role } from '../store/roles';
import type { ChangeRunner } from './runner';
import { refuseLeavingNoAdmin } from './last-admin';

/** The credential with its new role, or null when no credential of that kind has this id. */
export function setCredentialRole(runner: ChangeRunner, actor: Actor, kind: CredentialKind, id: number, role: Role, now: Date): Promise<CredentialInfo | null> {
  return runner.run<CredentialInfo | null>(`${kind}.role`, (store) => {
    const before = store.credentials.get(id);
    if (before === null || before.kind !== kind) return { commit: () => null, audit: false };
    return {
      commit: ({ store }) => {
        if (!store.credentials.setRole(kind, id, role)) return null;
        refuseLeavingNoAdmin(store, before, now.toISOString(), 'demote');
        return store.credentials.get(id);
      },
      audit: () => ({ targetType: kind, targetId: id, summary: { name: before.name, from: before.role, to: role } }),
    };
  }, { actor });
}
