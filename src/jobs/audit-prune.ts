// The audit log's only deletion: rows older than WGCP_AUDIT_DAYS, at start and then hourly
// (not every minute: each prune writes, and a router's flash pays for writes).
import type { App } from '../app';
import { pruneAuditBefore } from '../ops/audit-prune';

export const AUDIT_PRUNE_EVERY_MS = 60 * 60_000;

/** Deletes the rows past their age and returns how many went. */
export async function pruneAudit(app: App): Promise<number> {
  const before = new Date(app.now().getTime() - app.config.auditDays * 86_400_000).toISOString();
  const n = await pruneAuditBefore(app, before);
  if (n > 0) app.log.info('audit log pruned', { rows: n, before });
  return n;
}
