// Registration tokens, shared by the API and `wgcp regtoken`: a UUIDv4 for one server,
// single use, valid 24 h, revoked by its value. Changes of the runner; the audit log names
// the server, never the token (it is a credential until used).
import { apiError } from '../error-registry';
import type { RegTokenRecord } from '../store/regtokens';
import { isUuid, newUuid } from '../device/identifiers';
import type { ChangeOptions, ChangeRunner } from './runner';

export const REG_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;

export function createRegToken(runner: ChangeRunner, serverId: number, now: Date, opts?: ChangeOptions): Promise<RegTokenRecord> {
  return runner.run('regtoken.create', (store) => {
    if (!store.servers.get(serverId)) throw apiError('WGCP_SERVER_NOT_FOUND');
    const token = { token: newUuid(), serverId, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + REG_TOKEN_LIFETIME_MS).toISOString() };
    return {
      commit: ({ store }) => store.regTokens.insert(token),
      audit: () => ({ targetType: 'server', targetId: serverId, summary: { expiresAt: token.expiresAt } }),
    };
  }, opts);
}

/** False when no token has that value (any text that is not a UUID names none). */
export function revokeRegToken(runner: ChangeRunner, value: string, opts?: ChangeOptions): Promise<boolean> {
  const token = value.toLowerCase();
  return runner.run('regtoken.revoke', (store) => {
    const known = isUuid(value) ? store.regTokens.get(token) : undefined;
    if (!known) return { commit: () => false, audit: false };
    return {
      commit: ({ store }) => store.regTokens.delete(token),
      audit: () => ({ targetType: 'server', targetId: known.serverId, summary: {} }),
    };
  }, opts);
}
