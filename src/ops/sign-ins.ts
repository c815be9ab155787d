// The page's sign-ins in the audit log: each one, and each refused one with its reason
// (never what was typed).
import type { App } from '../app';
import type { Actor } from '../store/audit';

export type SignInRefusal = 'unknown key' | 'two-factor code missing' | 'wrong two-factor code' | 'rate limited' | 'key sign-in off for the page' | 'single sign-on failed' | 'no role for this person' | 'passkey missing' | 'passkey refused';

/** `person`: who single sign-on signed in (subject, email, issuer), for the row's summary. */
export function recordSignIn(app: App, actor: Actor, person?: Record<string, unknown>): void {
  app.store.tx(() => app.store.audit.append({ at: app.now().toISOString(), actor, action: 'session.sign-in', targetType: 'session', targetId: null, ...(person ? { summary: person } : {}) }));
}

/** `actor` is who the presented key was, when it was a live one (a good key, a wrong code). */
export function recordSignInFailure(app: App, actor: Actor, reason: SignInRefusal, more: Record<string, unknown> = {}): void {
  app.store.tx(() => app.store.audit.append({ at: app.now().toISOString(), actor, action: 'session.sign-in-failed', targetType: 'session', targetId: null, summary: { ...more, reason } }));
}
