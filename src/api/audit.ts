// GET /api/audit: the audit log, newest first, a page at a time (`nextCursor` is the
// `cursor` of the next page, null at the end), filtered by actor, target, action and time.
// With `after=ID` instead: oldest first from the row after ID (for shipping it elsewhere).
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { readAuditQuery } from '../access/audit-query';

export function auditRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/audit', auth: 'control', role: 'admin',
      handler(ctx) {
        const { filter, page } = readAuditQuery(ctx.query);
        return { ...ok(app.store.audit.list(filter, page)), headers: { 'Cache-Control': 'no-store' } };
      },
    },
  ];
}
