// API keys and access tokens, shared by `wgcp apikey|token` and the API (the page's panel):
// made with a secret shown once, listed without it, revoked by id. The database keeps only
// the secret's hash; a session opened with a revoked credential ends with it. Making and
// revoking one are changes of the runner, audited (never with the secret). The last admin
// is never revoked (last-admin.ts).
import type { CredentialInfo, CredentialKind } from '../store/credentials';
import type { Store } from '../store/store';
import type { Role } from '../store/roles';
import type { ChangeOptions, ChangeRunner } from './runner';
import { refuseLeavingNoAdmin } from './last-admin';

export interface NewCredential extends CredentialInfo { secret: string }

export { MAX_TOKEN_DAYS } from '../resources/credential';

export function createCredential(runner: ChangeRunner, kind: CredentialKind, name: string, now: Date, expiresInDays: number | null = null, role: Role = 'admin', opts?: ChangeOptions): Promise<NewCredential> {
  const expiresAt = expiresInDays === null ? null : new Date(now.getTime() + expiresInDays * 86_400_000).toISOString();
  return runner.run(`${kind}.create`, () => ({
    commit({ store }) {
      const { id, secret } = store.credentials.create(kind, name, now.toISOString(), expiresAt, role);
      return { ...store.credentials.list(kind).find((c) => c.id === id)!, secret };
    },
    audit: (c) => ({ targetType: kind, targetId: c.id, summary: { name, role, expiresAt } }),
  }), opts);
}

export const listCredentials = (store: Store, kind: CredentialKind): CredentialInfo[] => store.credentials.list(kind);

/** False when no credential of that kind has this id. */
export function revokeCredential(runner: ChangeRunner, kind: CredentialKind, id: number, now: Date, opts?: ChangeOptions): Promise<boolean> {
  return runner.run(`${kind}.revoke`, (store) => {
    const known = store.credentials.get(id);
    if (known === null || known.kind !== kind) return { commit: () => false, audit: false };
    return {
      commit: ({ store, accessEnded }) => {
        const revoked = store.credentials.revoke(kind, id);
        refuseLeavingNoAdmin(store, known, now.toISOString(), 'revoke');
        // Its sessions end with its row (ON DELETE CASCADE); its event streams close after the commit.
        accessEnded(id);
        return revoked;
      },
      audit: () => ({ targetType: kind, targetId: id, summary: { name: known.name } }),
    };
  }, opts);
}
