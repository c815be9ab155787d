// Who is signed in to the page (admins): GET /api/sessions lists the live sessions with the
// person or key behind each; DELETE /api/sessions/{id} ends one; DELETE
// /api/people/{subject}/sessions ends every session of a person signed in by single sign-on.
import { apiError, fieldError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { endPersonSessions, endSession, listSignedIn } from '../ops/people-sessions';

const str = { type: 'string' };
const ts = { type: 'string', format: 'date-time' };
const nullable = (t: string) => ({ type: [t, 'null'] });

/** A live page session (the page's SignedIn is held to it). */
const SIGNED_IN = () => ({
  type: 'object',
  properties: {
    id: { type: 'integer', format: 'int64' }, kind: { enum: ['person', 'apikey', 'token'] }, name: { ...str, description: 'a person: email (subject); a key or token: its name' },
    role: { enum: ['admin', 'operator', 'viewer'] }, subject: nullable('string'), email: nullable('string'), credentialID: nullable('integer'),
    createdAt: ts, lastSeenAt: ts, expiresAt: ts,
  },
});

export function signedInRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/sessions', auth: 'control', role: 'admin',
      doc: () => ({ summary: 'Who is signed in to the page: the live sessions, most recently used first', answers: { 200: { description: 'the sessions', shape: { type: 'object', properties: { sessions: { type: 'array', items: SIGNED_IN() } } } } } }),
      handler: () => ({ ...ok({ sessions: listSignedIn(app) }), headers: { 'Cache-Control': 'no-store' } }),
    },
    {
      method: 'DELETE', path: '/api/sessions/:id', auth: 'control', role: 'admin',
      doc: () => ({ summary: 'End one page session (audited as session.end)', answers: { 204: { description: 'ended' } }, errors: [[404, 'no such session']] }),
      handler(ctx) {
        if (!/^\d{1,15}$/.test(ctx.params.id)) throw apiError('WGCP_SESSION_NOT_FOUND');
        endSession(app, ctx.actor!, Number(ctx.params.id));
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: '/api/people/:subject/sessions', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'End every page session of a person (audited as person.sessions-end)', params: { subject: { description: "the person's subject at the single sign-on provider" } },
        answers: { 200: { description: 'how many ended', shape: { type: 'object', properties: { ended: { type: 'integer' } } } } }, errors: [[400, 'bad subject']],
      }),
      handler(ctx) {
        const subject = ctx.params.subject;
        if (subject.length === 0 || subject.length > 255) throw fieldError('subject', 'must be 1 to 255 characters');
        return ok({ ended: endPersonSessions(app, ctx.actor!, subject) });
      },
    },
  ];
}
