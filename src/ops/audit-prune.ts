// The audit log's only deletion, as a change of the runner: rows older than the cut-off.
// The prune that removed rows says so in the log itself; one that found none leaves no row.
import type { App } from '../app';
import { jobActor, type ChangeOptions } from './runner';

export function pruneAuditBefore(app: App, before: string, opts: ChangeOptions = { actor: jobActor('audit prune') }): Promise<number> {
  return app.runner.run('audit.prune', () => ({
    commit: ({ store }) => store.audit.prune(before),
    audit: (n) => (n > 0 ? { targetType: 'audit', targetId: null, summary: { rows: n, before } } : null),
  }), opts);
}
