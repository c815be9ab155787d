// Signing in to the page with a passkey: as the second factor of a key or token (where a
// TOTP code is asked, a passkey of that key is taken instead), or alone as a person of
// single sign-on (a discoverable passkey that names its owner). The challenge is kept
// server-side for one answer; the signature is checked by @simplewebauthn/server against
// the stored public key, the relying party and the origin; the signature counter must
// move forward, in one UPDATE of the change runner (a copied authenticator, a replayed
// answer). Opening the session is the HTTP layer's (src/http/session.ts).
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { PasskeyRecord } from '../store/passkeys';
import type { Role } from '../store/roles';
import { challengeOf, type Ceremony } from '../access/passkey-challenges';
import { webauthn, type RelyingParty } from './passkeys';

/** The ceremony of a sign-in: for one key or token's passkeys, or (null) a person's passkey that names itself. */
const signInCeremony = (credentialId: number | null): Ceremony => ({ purpose: 'sign-in', owner: credentialId === null ? null : `credential:${credentialId}` });

export const hasPasskeys = (app: App, credentialId: number | null): boolean =>
  credentialId !== null && app.store.passkeys.ofOwner({ credentialId }).length > 0;

/** The options navigator.credentials.get() takes; a key's passkeys are listed, a person's are found by the authenticator. */
export async function beginPasskeySignIn(app: App, rp: RelyingParty, credentialId: number | null): Promise<unknown> {
  const mine = credentialId === null ? [] : app.store.passkeys.ofOwner({ credentialId });
  if (credentialId !== null && mine.length === 0) throw apiError('WGCP_PASSKEY_NONE');
  const lib = await webauthn();
  const options = await lib.generateAuthenticationOptions({
    rpID: rp.rpID,
    allowCredentials: mine.map((p) => ({ id: p.webauthnId, transports: p.transports })),
    userVerification: credentialId === null ? 'required' : 'preferred',
  });
  app.services.passkeyChallenges.keep(options.challenge, signInCeremony(credentialId));
  return options;
}

/** Who a passkey signed in: a key or token (its id), or a person with the role last mapped. */
export type PasskeySignIn = { passkey: PasskeyRecord; credentialId: number } | { passkey: PasskeyRecord; person: { subject: string; email: string | null; role: Role } };

/**
 * Checks a browser's answer; `credentialId` is the key or token already presented (a second
 * factor), null for a passkey alone (a person's). Refusals: 400 for a challenge not under
 * way, 401 for a passkey unknown, of another owner, or whose signature or counter fails.
 */
export async function finishPasskeySignIn(app: App, rp: RelyingParty, response: unknown, credentialId: number | null): Promise<PasskeySignIn> {
  const challenge = challengeOf(response);
  if (challenge === null || !app.services.passkeyChallenges.take(challenge, signInCeremony(credentialId))) throw apiError('WGCP_PASSKEY_CHALLENGE');
  const id = (response as { id?: unknown }).id;
  const passkey = typeof id === 'string' ? app.store.passkeys.byWebauthnId(id) : null;
  if (passkey === null) throw apiError('WGCP_PASSKEY_UNKNOWN');
  const owner = passkey.owner;
  if (credentialId !== null && !('credentialId' in owner && owner.credentialId === credentialId)) throw apiError('WGCP_PASSKEY_UNKNOWN');
  if (credentialId === null && 'credentialId' in owner) throw apiError('WGCP_PASSKEY_SECOND_FACTOR');
  // A person's passkey carries the role of their last single sign-on; none, or single sign-on off: refused.
  if ('subject' in owner && (owner.role === null || app.config.oidc === null)) throw apiError('WGCP_PASSKEY_NO_ROLE');
  const lib = await webauthn();
  let newCounter: number;
  try {
    const r = await lib.verifyAuthenticationResponse({
      response: response as Parameters<typeof lib.verifyAuthenticationResponse>[0]['response'],
      expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.rpID,
      credential: { id: passkey.webauthnId, publicKey: passkey.publicKey, counter: passkey.counter, transports: passkey.transports },
      requireUserVerification: credentialId === null,
    });
    if (!r.verified) throw new Error('the signature did not verify');
    newCounter = r.authenticationInfo.newCounter;
  } catch (err) {
    throw apiError('WGCP_PASSKEY_REFUSED', { why: (err as Error).message });
  }
  const now = app.now().toISOString();
  // The counter moves forward in the commit, so that of two answers at once only one counts.
  await app.runner.run('passkey.use', () => ({
    commit: ({ store }) => {
      if (!store.passkeys.use(passkey.id, newCounter, now)) throw apiError('WGCP_PASSKEY_REFUSED', { why: `its signature counter ${newCounter} did not move past ${passkey.counter} (a copied authenticator, or an answer used before)` });
    },
    // The sign-in's own row (session.sign-in) names the passkey and its owner.
    audit: false,
  }));
  if ('credentialId' in owner) return { passkey, credentialId: owner.credentialId };
  return { passkey, person: { subject: owner.subject, email: owner.email, role: owner.role! } };
}

/** At each single sign-on of a person: their passkeys take the role the mapping gives now (null: none, they stop signing in). */
export function notePersonSignIn(app: App, subject: string, email: string | null, role: Role | null): Promise<void> {
  return app.runner.run('passkey.person', (store) => {
    const mine = store.passkeys.ofOwner({ subject, email, role });
    return {
      commit: ({ store }) => { if (mine.length > 0) store.passkeys.updatePerson(subject, email, role); },
      audit: false,
    };
  });
}
