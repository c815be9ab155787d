// API keys and access tokens, shared by `wgcp apikey|token` and the API (the page's panel):
// made with a secret shown once, listed without it, revoked by id. The database keeps only
// the secret's hash; a session opened with a revoked credential ends with it.
import type { CredentialInfo, CredentialKind } from '../store/credentials';
import type { Store } from '../store/store';
import type { Role } from '../store/roles';

export interface NewCredential extends CredentialInfo { secret: string }

export const MAX_TOKEN_DAYS = 36_500;

export function createCredential(store: Store, kind: CredentialKind, name: string, now: Date, expiresInDays: number | null = null, role: Role = 'admin'): NewCredential {
  const expiresAt = expiresInDays === null ? null : new Date(now.getTime() + expiresInDays * 86_400_000).toISOString();
  const { id, secret } = store.credentials.create(kind, name, now.toISOString(), expiresAt, role);
  const info = store.credentials.list(kind).find((c) => c.id === id)!;
  return { ...info, secret };
}

export const listCredentials = (store: Store, kind: CredentialKind): CredentialInfo[] => store.credentials.list(kind);

/** False when no credential of that kind has this id. */
export const revokeCredential = (store: Store, kind: CredentialKind, id: number): boolean => store.credentials.revoke(kind, id);
