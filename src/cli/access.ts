// `wgcp totp reset ID` (a lost phone: the key or token signs in on the page without a code
// again, and can enrol anew) and `wgcp audit` (the audit log as JSON lines, oldest first,
// for shipping elsewhere: `--after ID` continues from the last line shipped).
import type { Store } from '../store/store';
import { resetTotp } from '../ops/totp';
import { readAuditQuery } from '../access/audit-query';
import { UsageError, stringOption, type Args } from './args';

export function runTotpCommand(args: Args, store: Store, out: (s: string) => void): void {
  const [, verb, id] = args.words;
  if (verb !== 'reset' || !id || !/^\d{1,15}$/.test(id)) throw new UsageError('usage: wgcp totp reset ID   (the id of the API key or access token)');
  if (store.credentials.get(Number(id)) === null) throw new UsageError(`no API key or access token with id ${id}`);
  if (!resetTotp(store, Number(id), new Date())) throw new UsageError(`credential ${id} has no two-factor sign-in`);
  out(`two-factor sign-in of credential ${id} removed\n`);
}

const FILTERS = ['actor', 'target', 'action', 'since', 'until', 'after'] as const;

export function runAuditCommand(args: Args, store: Store, out: (s: string) => void): void {
  const q = new URLSearchParams();
  for (const name of FILTERS) {
    const v = stringOption(args, name);
    if (v !== undefined) q.set(name, v);
  }
  if (!q.has('after')) q.set('after', '0');
  q.set('limit', '1000');
  let query;
  try {
    query = readAuditQuery(q);
  } catch (err) {
    throw new UsageError(`--${(err as Error).message}`);
  }
  for (;;) {
    const { entries, nextCursor } = store.audit.list(query.filter, query.page);
    for (const e of entries) out(JSON.stringify(e) + '\n');
    if (nextCursor === null) return;
    query.page.after = nextCursor;
  }
}
