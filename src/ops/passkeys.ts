// Passkeys of the signed-in page session's owner: its key or token (a second factor at the
// page's sign-in, beside TOTP) or the person of single sign-on (a first factor). Register
// (a challenge kept server-side, short-lived, used once; the browser's answer checked by
// @simplewebauthn/server, loaded at the first use), list, rename, remove. Each change goes
// through the change runner with its audit row.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { ChangeRunner } from './runner';
import type { Actor } from '../store/audit';
import type { PasskeyOwner, PasskeyRecord } from '../store/passkeys';
import { challengeOf } from '../access/passkey-challenges';
import { personName } from '../store/sessions';
import { badField } from './field-error';

/** The WebAuthn library: large and needed only by passkeys, so imported at their first use. */
export const webauthn = () => import('@simplewebauthn/server');

export const PASSKEYS_MAX = 20;
export const PASSKEY_NAME_MAX = 64;

/** The site passkeys belong to (src/api/passkey-origin.ts decides it from the request). */
export interface RelyingParty { rpID: string; origin: string }

/** A passkey as the API shows it: never its key. */
export interface PasskeyView { id: number; name: string; createdAt: string; lastUsedAt: string | null; transports: string[] }
export const viewOf = (p: PasskeyRecord): PasskeyView => ({ id: p.id, name: p.name, createdAt: p.createdAt, lastUsedAt: p.lastUsedAt, transports: p.transports });


/** How a ceremony names its owner. */
export const ownerKey = (o: PasskeyOwner): string => ('credentialId' in o ? `credential:${o.credentialId}` : `person:${o.subject}`);
/** How the audit log names a passkey's owner. */
export const ownerName = (app: App, o: PasskeyOwner): string => ('credentialId' in o ? app.store.credentials.get(o.credentialId)?.name ?? `credential ${o.credentialId}` : personName(o));

/** The owner of the caller's passkeys: the page session's key or token, or its person. */
function ownerOf(actor: Actor): PasskeyOwner {
  if (actor.kind === 'person' && actor.person) return { subject: actor.person.subject, email: actor.person.email, role: actor.role };
  if (actor.kind !== 'page') throw apiError('WGCP_PASSKEY_PAGE_ONLY');
  if (actor.id === null) throw apiError('WGCP_PASSKEY_ENVIRONMENT_KEY');
  return { credentialId: actor.id };
}

const sameOwner = (a: PasskeyOwner, b: PasskeyOwner): boolean => ownerKey(a) === ownerKey(b);

export function listPasskeys(app: App, actor: Actor): PasskeyView[] {
  return app.store.passkeys.ofOwner(ownerOf(actor)).map(viewOf);
}

/** The options the browser's navigator.credentials.create() takes; the challenge is kept for the answer. */
export async function beginRegistration(app: App, actor: Actor, rp: RelyingParty): Promise<unknown> {
  const owner = ownerOf(actor);
  const mine = app.store.passkeys.ofOwner(owner);
  if (mine.length >= PASSKEYS_MAX) throw apiError('WGCP_PASSKEY_LIMIT', { max: PASSKEYS_MAX });
  const person = !('credentialId' in owner);
  const lib = await webauthn();
  const options = await lib.generateRegistrationOptions({
    rpName: 'wgcp', rpID: rp.rpID, userName: actor.name, userDisplayName: actor.name,
    // The same user handle each time: an authenticator keeps one passkey per owner and site.
    userID: new Uint8Array(Buffer.from(ownerKey(owner), 'utf8').subarray(0, 64)),
    attestationType: 'none',
    excludeCredentials: mine.map((p) => ({ id: p.webauthnId, transports: p.transports })),
    // A person's passkey signs in alone: it must be discoverable and verify the person (PIN, biometrics).
    authenticatorSelection: { residentKey: person ? 'required' : 'preferred', userVerification: person ? 'required' : 'preferred' },
  });
  app.services.passkeyChallenges.keep(options.challenge, { purpose: 'register', owner: ownerKey(owner) });
  return options;
}

function readName(name: unknown, fallback: string): string {
  if (name === undefined || name === null || name === '') return fallback;
  if (typeof name !== 'string' || name.trim() === '' || name.length > PASSKEY_NAME_MAX || /[\x00-\x1f\x7f]/.test(name)) {
    throw badField('name', `must be text of 1 to ${PASSKEY_NAME_MAX} characters`);
  }
  return name.trim();
}

/** Checks the browser's answer against the kept challenge and stores the new passkey. */
export async function finishRegistration(app: App, actor: Actor, rp: RelyingParty, response: unknown, name?: unknown): Promise<PasskeyView> {
  const owner = ownerOf(actor);
  const challenge = challengeOf(response);
  if (challenge === null || !app.services.passkeyChallenges.take(challenge, { purpose: 'register', owner: ownerKey(owner) })) throw apiError('WGCP_PASSKEY_CHALLENGE');
  const lib = await webauthn();
  let info;
  try {
    const r = await lib.verifyRegistrationResponse({
      response: response as Parameters<typeof lib.verifyRegistrationResponse>[0]['response'],
      expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.rpID,
      requireUserVerification: !('credentialId' in owner),
    });
    if (!r.verified) throw new Error('the attestation did not verify');
    info = r.registrationInfo;
  } catch (err) {
    throw apiError('WGCP_PASSKEY_REFUSED', { why: (err as Error).message });
  }
  const { credential } = info;
  const now = app.now().toISOString();
  return app.runner.run('passkey.register', (store) => {
    const table = store.passkeys;
    const mine = table.ofOwner(owner);
    if (mine.length >= PASSKEYS_MAX) throw apiError('WGCP_PASSKEY_LIMIT', { max: PASSKEYS_MAX });
    if (table.byWebauthnId(credential.id) !== null) throw apiError('WGCP_PASSKEY_REFUSED', { why: 'it is registered here already' });
    const fallback = `Passkey ${mine.length + 1}`;
    const chosen = readName(name, fallback);
    return {
      commit: ({ store }) => viewOf(store.passkeys.insert({
        webauthnId: credential.id, publicKey: credential.publicKey, counter: credential.counter,
        transports: credential.transports ?? [], name: chosen, owner, createdAt: now,
      })),
      audit: (p) => ({ targetType: 'passkey', targetId: p.id, summary: { name: p.name, owner: ownerName(app, owner) } }),
    };
  }, { actor });
}

/** One of the caller's own passkeys, or 404 (another's passkey is as absent as none). */
function ownPasskey(app: App, actor: Actor, id: number): PasskeyRecord {
  const owner = ownerOf(actor);
  const p = app.store.passkeys.get(id);
  if (p === null || !sameOwner(p.owner, owner)) throw apiError('WGCP_PASSKEY_NOT_FOUND');
  return p;
}

export function renamePasskey(app: App, actor: Actor, id: number, name: unknown): Promise<PasskeyView> {
  if (name === undefined || name === null || name === '') throw badField('name', 'is required');
  const chosen = readName(name, '');
  return app.runner.run('passkey.rename', () => {
    const p = ownPasskey(app, actor, id);
    return {
      commit: ({ store }) => { store.passkeys.rename(id, chosen); return viewOf({ ...p, name: chosen }); },
      audit: () => ({ targetType: 'passkey', targetId: id, summary: { name: chosen, was: { name: p.name }, owner: ownerName(app, p.owner) } }),
    };
  }, { actor });
}

export function removePasskey(app: App, actor: Actor, id: number): Promise<void> {
  return app.runner.run('passkey.remove', () => {
    const p = ownPasskey(app, actor, id);
    return {
      commit: ({ store }) => { store.passkeys.remove(id); },
      audit: () => ({ targetType: 'passkey', targetId: id, summary: { name: p.name, owner: ownerName(app, p.owner) } }),
    };
  }, { actor });
}

/** `wgcp passkey reset ID` on the router (lost authenticators): a key's or token's passkeys removed; how many. */
export function resetPasskeys(runner: ChangeRunner, actor: Actor, credentialId: number): Promise<number> {
  return runner.run('passkey.reset', (store) => {
    const owner = store.credentials.get(credentialId)?.name ?? null;
    return {
      commit: ({ store }) => store.passkeys.removeOfCredential(credentialId),
      audit: (removed) => (removed === 0 ? null : { targetType: 'credential', targetId: credentialId, summary: { removed, owner } }),
    };
  }, { actor });
}
