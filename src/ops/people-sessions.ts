// Who is signed in to the page, and an admin ending someone's sessions: one session, or
// every session of a person (single sign-on), audited. Sessions are records rather than
// changes of the configuration (docs/development.md): no kernel step, no event.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Actor } from '../store/audit';
import { personName } from '../store/sessions';

/** The environment's key, as http/auth.ts names it. */
const CONFIGURED_KEY_NAME = 'WGCP_API_KEY';

export interface SignedIn {
  id: number;
  kind: 'person' | 'apikey' | 'token';
  name: string;
  role: string | null;
  subject: string | null;
  email: string | null;
  credentialID: number | null;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

export function listSignedIn(app: App): SignedIn[] {
  return app.store.sessions.list(app.now().toISOString()).map((s) => {
    const times = { createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, expiresAt: s.expiresAt };
    if (s.person !== null) return { id: s.id, kind: 'person', name: personName(s.person), role: s.person.role, subject: s.person.subject, email: s.person.email, credentialID: null, ...times };
    const c = s.credentialId === null ? null : app.store.credentials.get(s.credentialId);
    return { id: s.id, kind: c?.kind ?? 'apikey', name: c?.name ?? CONFIGURED_KEY_NAME, role: c?.role ?? 'admin', subject: null, email: null, credentialID: s.credentialId, ...times };
  });
}

function audit(app: App, actor: Actor, action: string, targetType: string, targetId: string | number, summary: Record<string, unknown>): void {
  app.store.tx(() => app.store.audit.append({ at: app.now().toISOString(), actor, action, targetType, targetId, summary }));
}

/** Ends one session; 404 when it is not (or no longer) there. */
export function endSession(app: App, actor: Actor, id: number): void {
  if (!app.store.sessions.closeById(id)) throw apiError('WGCP_SESSION_NOT_FOUND');
  audit(app, actor, 'session.end', 'session', id, {});
}

/** Ends every session of a person; how many ended (0 is not an error: they may have signed out). */
export function endPersonSessions(app: App, actor: Actor, subject: string): number {
  const ended = app.store.sessions.closePerson(subject);
  audit(app, actor, 'person.sessions-end', 'person', subject, { ended });
  return ended;
}
