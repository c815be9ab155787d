// `wgcp totp reset ID` (a lost phone: the key or token signs in on the page without a code
// again, and can enrol anew) and `wgcp audit` (the audit log, oldest first: a table for
// people, or with --json one JSON object a line for shipping elsewhere: `--after ID`
// continues from the last line shipped).
import type { Store } from '../store/store';
import { resetTotp } from '../ops/totp';
import { resetPasskeys } from '../ops/passkeys';
import { cliRunner } from '../ops/cli-runner';
import { CLI_ACTOR } from '../ops/runner';
import { KernelOff } from '../kernel/plane';
import { readAuditQuery } from '../access/audit-query';
import { UsageError, stringOption, wantsJson, type Args } from './args';
import { renderTable, shortTime } from './table';
import type { AuditRow } from '../store/audit';

export function runTotpCommand(args: Args, store: Store, out: (s: string) => void): void {
  const [, verb, id] = args.words;
  if (verb !== 'reset' || !id || !/^\d{1,15}$/.test(id)) throw new UsageError('usage: wgcp totp reset ID   (the id of the API key or access token)');
  if (store.credentials.get(Number(id)) === null) throw new UsageError(`no API key or access token with id ${id}`);
  if (!resetTotp(store, Number(id), new Date())) throw new UsageError(`credential ${id} has no two-factor sign-in`);
  out(`two-factor sign-in of credential ${id} removed\n`);
}

/** `wgcp passkey reset ID`: a key or token whose authenticators are lost signs in on the page with itself alone again. */
export async function runPasskeyCommand(args: Args, store: Store, out: (s: string) => void): Promise<void> {
  const [, verb, id] = args.words;
  if (verb !== 'reset' || !id || !/^\d{1,15}$/.test(id)) throw new UsageError('usage: wgcp passkey reset ID   (the id of the API key or access token)');
  if (store.credentials.get(Number(id)) === null) throw new UsageError(`no API key or access token with id ${id}`);
  const runner = cliRunner(store, new KernelOff('the CLI stores; wgcpd applies'));
  const removed = await resetPasskeys(runner, { ...CLI_ACTOR, name: 'wgcp passkey reset' }, Number(id));
  if (removed === 0) throw new UsageError(`credential ${id} has no passkeys`);
  out(`${removed} passkey${removed === 1 ? '' : 's'} of credential ${id} removed\n`);
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
  const json = wantsJson(args);
  let any = false;
  for (;;) {
    const { entries, nextCursor } = store.audit.list(query.filter, query.page);
    // The table is laid out a page (1,000 rows) at a time: a long log never waits whole in memory.
    if (json) for (const e of entries) out(JSON.stringify(e) + '\n');
    else if (entries.length) out(auditTable(entries, !any));
    any ||= entries.length > 0;
    if (nextCursor === null) break;
    query.page.after = nextCursor;
  }
  if (!json && !any) out('no audit entries\n');
}

const summaryText = (s: Record<string, unknown>): string => Object.entries(s).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');

function auditTable(entries: AuditRow[], withHeader: boolean): string {
  const text = renderTable(['ID', 'WHEN (UTC)', 'WHO', 'ACTION', 'TARGET', 'WHAT'], entries.map((e) => [
    e.id, shortTime(e.at), `${e.actor.kind}${e.actor.id === null ? '' : `:${e.actor.id}`} ${e.actor.name}`.trim(), e.action,
    e.targetType ? `${e.targetType}${e.targetId === null ? '' : `:${e.targetId}`}` : null, summaryText(e.summary)]), [0]);
  return withHeader ? text : text.slice(text.indexOf('\n') + 1);
}
