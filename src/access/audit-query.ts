// The query of GET /api/audit (and `wgcp audit`): filters and a page, each checked, a bad
// one a 400 naming the parameter.
import type { ActorKind, AuditFilter, AuditPage } from '../store/audit';
import { badField } from '../ops/field-error';

const KINDS: readonly ActorKind[] = ['apikey', 'token', 'page', 'person', 'reconciler', 'job', 'cli', 'share', 'device'];
export const AUDIT_PAGE_MAX = 1000;
export const AUDIT_PAGE_DEFAULT = 100;

function time(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  const t = Date.parse(v);
  if (!/^\d{4}-\d\d-\d\d/.test(v) || Number.isNaN(t)) throw badField(name, 'must be an ISO 8601 time, e.g. 2026-01-31T00:00:00Z');
  return new Date(t).toISOString();
}

function whole(q: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^\d{1,16}$/.test(v) || Number(v) < min || Number(v) > max) throw badField(name, `must be a whole number from ${min} to ${max}`);
  return Number(v);
}

function text(q: URLSearchParams, name: string, pattern: RegExp): string | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!pattern.test(v)) throw badField(name, `must match ${pattern}`);
  return v;
}

/** `actor=apikey` or `actor=apikey:3`; `target=peer` or `target=peer:12`. */
export function readAuditQuery(q: URLSearchParams): { filter: AuditFilter; page: AuditPage } {
  const filter: AuditFilter = {};
  const actor = text(q, 'actor', /^[a-z]+(:\d{1,16})?$/);
  if (actor !== undefined) {
    const [kind, id] = actor.split(':');
    if (!(KINDS as readonly string[]).includes(kind)) throw badField('actor', `must be one of ${KINDS.join(', ')}, optionally :ID`);
    filter.actorKind = kind as ActorKind;
    if (id !== undefined) filter.actorId = Number(id);
  }
  const target = text(q, 'target', /^[a-z_-]{1,32}(:[A-Za-z0-9_.-]{1,64})?$/);
  if (target !== undefined) {
    const i = target.indexOf(':');
    filter.targetType = i < 0 ? target : target.slice(0, i);
    if (i >= 0) filter.targetId = target.slice(i + 1);
  }
  filter.action = text(q, 'action', /^[a-z0-9_.-]{1,64}$/);
  filter.since = time(q, 'since');
  filter.until = time(q, 'until');
  const page: AuditPage = { limit: whole(q, 'limit', 1, AUDIT_PAGE_MAX) ?? AUDIT_PAGE_DEFAULT };
  const cursor = whole(q, 'cursor', 1, Number.MAX_SAFE_INTEGER);
  if (cursor !== undefined) page.before = cursor;
  const after = whole(q, 'after', 0, Number.MAX_SAFE_INTEGER);
  if (after !== undefined && cursor !== undefined) throw badField('after', 'cannot be given with cursor');
  if (after !== undefined) page.after = after;
  return { filter, page };
}
