// Registration tokens, shared by the API and `wgcp regtoken`: a UUIDv4 for one server,
// single use, valid 24 h, revoked by its value. Tokens touch no kernel, so the CLI runs
// these on the database beside a running daemon.
import type { RegTokenRecord } from '../store/regtokens';
import type { Store } from '../store/store';
import { isUuid, newUuid } from '../device/identifiers';

export const REG_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;

export function createRegToken(store: Store, serverId: number, now: Date): RegTokenRecord {
  return store.regTokens.insert({
    token: newUuid(),
    serverId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + REG_TOKEN_LIFETIME_MS).toISOString(),
  });
}

/** False when no token has that value (any text that is not a UUID names none). */
export function revokeRegToken(store: Store, value: string): boolean {
  return isUuid(value) && store.regTokens.delete(value.toLowerCase());
}
