// GET /api/audit: the audit log, newest first, a page at a time (`nextCursor` is the
// `cursor` of the next page, null at the end), filtered by actor, target, action and time.
// With `after=ID` instead: oldest first from the row after ID (for shipping it elsewhere).
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { readAuditQuery } from '../access/audit-query';

const nullable = (t: string) => ({ type: [t, 'null'] });
const int = { type: 'integer', format: 'int64' };
const ts = { type: 'string', format: 'date-time' };

/** An entry of the log (the page's AuditEntry is held to it). */
const AUDIT_ENTRY = () => ({
  type: 'object',
  properties: {
    id: int, at: ts,
    actor: { type: 'object', properties: { kind: { enum: ['apikey', 'token', 'page', 'person', 'reconciler', 'job', 'cli', 'share', 'device'] }, id: nullable('integer'), name: { type: 'string' } } },
    address: { ...nullable('string'), description: 'source address of the request' }, role: { type: ['string', 'null'], enum: ['admin', 'operator', 'viewer', null] },
    action: { type: 'string', description: 'e.g. peer.update, share.use, session.sign-in-failed' },
    targetType: { type: 'string' }, targetId: nullable('string'), summary: { type: 'object', description: 'what changed, secrets left out' },
  },
});

export function auditRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/audit', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'The audit log, newest first, a page at a time',
        query: [
          { name: 'actor', schema: { type: 'string' }, description: 'an actor kind, or kind:id (e.g. apikey:3)' },
          { name: 'target', schema: { type: 'string' }, description: 'a target type, or type:id (e.g. peer:12)' },
          { name: 'action', schema: { type: 'string' }, description: 'an action, or its prefix up to a dot (peer matches peer.update)' },
          { name: 'since', schema: ts }, { name: 'until', schema: ts, description: 'exclusive' },
          { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
          { name: 'cursor', schema: { type: 'integer' }, description: 'the nextCursor of the previous page' },
          { name: 'after', schema: { type: 'integer' }, description: 'instead of cursor: oldest first, from the entry after this id (nextCursor then continues the same way)' },
        ],
        answers: { 200: { description: 'a page', shape: { type: 'object', properties: { entries: { type: 'array', items: AUDIT_ENTRY() }, nextCursor: nullable('integer') } } } },
        errors: [[400, 'a bad query parameter (`field` names it)']],
      }),
      handler(ctx) {
        const { filter, page } = readAuditQuery(ctx.query);
        return { ...ok(app.store.audit.list(filter, page)), headers: { 'Cache-Control': 'no-store' } };
      },
    },
  ];
}
