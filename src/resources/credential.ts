// The control plane's credentials, API keys and access tokens, described once: the record (a
// row of `credentials`), the body a create takes, what the API shows (never the secret or its
// hash: a new secret is in the 201 answer alone) and the OpenAPI schema. The secret itself,
// its hash and the match are the store's (store/credentials.ts); the last admin is the
// operation's rule (ops/last-admin.ts).
import { ROLES, type Resource, type Role } from './describe';
import { oneOf, readInt, readName } from './read';

export type CredentialKind = 'apikey' | 'token';

/** The longest an access token may live, in days (a hundred years: no end in practice). */
export const MAX_TOKEN_DAYS = 36_500;

export interface CredentialRecord {
  id: number;
  kind: CredentialKind;
  name: string;
  role: Role;
  /** The secret's SHA-256 (hex): written once, never read back with the record. */
  hash?: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  /** Input only: an access token's life in days (none: it never ends); the operation makes expiresAt of it. */
  expiresInDays?: number | null;
}

const str = { type: 'string' };
const nullableTs = { type: ['string', 'null'], format: 'date-time' };

export const CREDENTIAL: Resource<CredentialRecord> = {
  name: 'Credential',
  table: 'credentials',
  description: 'An API key or an access token; its secret is shown once, in the answer that makes it',
  fields: {
    id: { column: 'id', schema: { type: 'integer', format: 'int64' } },
    kind: { column: 'kind', schema: { enum: ['apikey', 'token'] } },
    name: { column: 'name', input: (b, f) => readName(b, f, { max: 64, min: 1 }), schema: { ...str, description: 'default: the kind and the time it was made' } },
    role: { column: 'role', input: (b, f) => oneOf(b, f, ROLES), initial: () => 'admin', schema: { enum: ['admin', 'operator', 'viewer'], description: 'default admin' } },
    hash: { column: { name: 'hash', writeOnly: true }, seenBy: 'never' },
    createdAt: { column: 'created_at', schema: { type: 'string', format: 'date-time' } },
    expiresAt: { column: 'expires_at', schema: nullableTs },
    lastUsedAt: { column: 'last_used_at', schema: nullableTs },
    expiresInDays: {
      seenBy: 'never', schema: { type: 'integer', minimum: 1, maximum: MAX_TOKEN_DAYS, description: 'access tokens only: the days it lives; left out: it never ends' },
      // An API key never ends: its route refuses the field (api/credentials.ts).
      input: (b, f) => readInt(b, f, 1, MAX_TOKEN_DAYS),
    },
  },
};
