// The router keeps an admin. Demoting or revoking the last live admin key or token would
// lock everyone out of what only an admin may do (keys, backup, restore), so such a change
// is refused with 409, from the API, the page and the CLI alike. It is checked in the
// change's own commit, after its write, so that two changes at once (two requests, or a
// request and a `wgcp` command on the same file) cannot each leave the other's admin as the
// last and then both go. `WGCP_API_KEY` does not count: it lives in an environment file that
// can change without the database knowing. The way back on the router, should it ever be
// needed, is `wgcp apikey create` (admin by default).
import createError from 'http-errors';
import type { CredentialInfo } from '../store/credentials';
import type { Store } from '../store/store';

const live = (c: CredentialInfo, now: string): boolean => c.expiresAt === null || c.expiresAt > now;

/** After a change to `before` was written, 409 (the transaction rolls back) when it left no live admin. */
export function refuseLeavingNoAdmin(store: Store, before: CredentialInfo, now: string, what: 'demote' | 'revoke'): void {
  if (before.role !== 'admin' || !live(before, now)) return;
  if (store.credentials.liveAdminCount(now) > 0) return;
  const verb = what === 'demote' ? 'changing the role of' : 'revoking';
  throw createError(409, `${verb} the last admin key or token would leave no admin: make another admin first`);
}
