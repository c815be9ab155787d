// Who is signed in to the page (admins): GET /api/sessions lists the live sessions with the
// person or key behind each; DELETE /api/sessions/{id} ends one; DELETE
// /api/people/{subject}/sessions ends every session of a person signed in by single sign-on.
import { apiError, fieldError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { endPersonSessions, endSession, listSignedIn } from '../ops/people-sessions';

export function signedInRoutes(app: App): Route[] {
  return [
    { method: 'GET', path: '/api/sessions', auth: 'control', role: 'admin', handler: () => ({ ...ok({ sessions: listSignedIn(app) }), headers: { 'Cache-Control': 'no-store' } }) },
    {
      method: 'DELETE', path: '/api/sessions/:id', auth: 'control', role: 'admin',
      handler(ctx) {
        if (!/^\d{1,15}$/.test(ctx.params.id)) throw apiError('WGCP_SESSION_NOT_FOUND');
        endSession(app, ctx.actor!, Number(ctx.params.id));
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: '/api/people/:subject/sessions', auth: 'control', role: 'admin',
      handler(ctx) {
        const subject = ctx.params.subject;
        if (subject.length === 0 || subject.length > 255) throw fieldError('subject', 'must be 1 to 255 characters');
        return ok({ ended: endPersonSessions(app, ctx.actor!, subject) });
      },
    },
  ];
}
