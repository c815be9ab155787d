// Two-factor sign-in for the page, per key or token: enrol (a secret shown once as a QR
// code), confirm with a first code (ten recovery codes, shown once, kept hashed), check a
// code at sign-in (each TOTP step and each recovery code works once), turn off, and the
// router's `wgcp totp reset` for a lost phone. API keys and tokens themselves stay single-factor.
import crypto from 'node:crypto';
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Actor } from '../store/audit';
import type { Store } from '../store/store';
import { hashRecoveryCode } from '../store/totp';
import { matchTotp, newTotpSecret, otpauthUri } from '../access/totp';
import { badField } from './field-error';

export const RECOVERY_CODES = 10;

export interface TotpStatus { enabled: boolean; pending: boolean; recoveryCodesLeft: number }

function credentialOf(actor: Actor): number {
  if (actor.kind !== 'page') throw apiError('WGCP_TOTP_PAGE_ONLY');
  if (actor.id === null) throw apiError('WGCP_TOTP_ENVIRONMENT_KEY');
  return actor.id;
}

export function totpStatus(store: Store, credentialId: number): TotpStatus {
  const rec = store.totp.get(credentialId);
  return { enabled: rec?.confirmedAt != null, pending: rec !== null && rec.confirmedAt === null, recoveryCodesLeft: rec?.confirmedAt ? store.totp.recoveryCodesLeft(credentialId) : 0 };
}

export const statusOfActor = (app: App, actor: Actor): TotpStatus => totpStatus(app.store, credentialOf(actor));

/** A new secret for the caller's credential (unconfirmed until a code from it comes back). */
export function beginTotp(app: App, actor: Actor): { secret: string; uri: string } {
  const id = credentialOf(actor);
  const secret = newTotpSecret();
  if (!app.store.tx(() => app.store.totp.begin(id, secret))) throw apiError('WGCP_TOTP_ALREADY_ON');
  return { secret, uri: otpauthUri(secret, actor.name) };
}

const newRecoveryCode = (): string => {
  const hex = crypto.randomBytes(5).toString('hex');
  return `${hex.slice(0, 5)}-${hex.slice(5)}`;
};

/** Turns two-factor sign-in on with a first good code; returns the recovery codes, once. */
export function confirmTotp(app: App, actor: Actor, code: string): string[] {
  const id = credentialOf(actor);
  const now = app.now();
  return app.store.tx(() => {
    const rec = app.store.totp.get(id);
    if (rec === null || rec.confirmedAt !== null) throw apiError('WGCP_TOTP_NO_ENROLMENT');
    const step = matchTotp(rec.secret, code, now.getTime());
    if (step === null) throw badField('code', 'is not the current code of the authenticator app');
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    app.store.totp.confirm(id, step, now.toISOString(), codes.map(hashRecoveryCode));
    app.store.audit.append({ at: now.toISOString(), actor, action: 'totp.enable', targetType: 'credential', targetId: id });
    return codes;
  });
}

/**
 * True when `code` is a current TOTP code of the credential not used before, or one of its
 * unused recovery codes; either is spent by this call.
 */
export function spendSecondFactor(store: Store, credentialId: number, code: string, now: Date): boolean {
  return store.tx(() => {
    const rec = store.totp.get(credentialId);
    if (rec === null || rec.confirmedAt === null) return false;
    const step = matchTotp(rec.secret, code.trim(), now.getTime());
    if (step !== null) return store.totp.useStep(credentialId, step);
    return /^[0-9a-f]{5}-?[0-9a-f]{5}$/i.test(code.trim()) && store.totp.useRecoveryCode(credentialId, code.trim(), now.toISOString());
  });
}

export const needsSecondFactor = (store: Store, credentialId: number | null): boolean =>
  credentialId !== null && store.totp.get(credentialId)?.confirmedAt != null;

/** Turns it off from the page: a current code (or a recovery code) proves the phone is at hand. */
export function disableTotp(app: App, actor: Actor, code: string): void {
  const id = credentialOf(actor);
  const now = app.now();
  if (!needsSecondFactor(app.store, id)) throw apiError('WGCP_TOTP_NOT_ON');
  if (!spendSecondFactor(app.store, id, code, now)) throw badField('code', 'is not a current code or an unused recovery code');
  app.store.tx(() => {
    app.store.totp.reset(id);
    app.store.audit.append({ at: now.toISOString(), actor, action: 'totp.disable', targetType: 'credential', targetId: id });
  });
}

/** `wgcp totp reset ID` on the router: false when the credential had no two-factor sign-in. */
export function resetTotp(store: Store, credentialId: number, now: Date): boolean {
  return store.tx(() => {
    if (!store.totp.reset(credentialId)) return false;
    store.audit.append({ at: now.toISOString(), actor: { kind: 'cli', id: null, name: 'wgcp totp reset', role: 'admin', address: null }, action: 'totp.reset', targetType: 'credential', targetId: credentialId });
    return true;
  });
}
