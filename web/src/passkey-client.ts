// The page's WebAuthn ceremonies: wgcpd makes the options (its challenge is good for one
// answer) and checks the browser's answer. @simplewebauthn/browser is a chunk of its own
// (webauthn.ts), fetched at the first ceremony, so the first load does not carry it.
import type { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { api } from './api';
import { t } from './i18n';

export interface Passkey { id: number; name: string; createdAt: string; lastUsedAt: string | null; transports: string[] }

type Lib = typeof import('./webauthn');

/** What the browser said, in words: a cancelled or timed-out prompt reads as such. */
function browserRefusal(err: unknown, lib: Lib): Error {
  const name = err instanceof lib.WebAuthnError ? (err.cause as Error | undefined)?.name : (err as Error | undefined)?.name;
  if (name === 'NotAllowedError' || name === 'AbortError') return new Error(t('passkeys.cancelled'));
  return err instanceof Error ? err : new Error(String(err));
}

async function inBrowser<T>(ceremony: (lib: Lib) => Promise<T>): Promise<T> {
  const lib = await import('./webauthn');
  if (!lib.browserSupportsWebAuthn()) throw new Error(t('passkeys.unsupported'));
  try {
    return await ceremony(lib);
  } catch (err) {
    throw browserRefusal(err, lib);
  }
}

/** Registers a passkey of the signed-in key, token or person. */
export async function registerPasskey(name: string): Promise<Passkey> {
  const optionsJSON = await api<Parameters<typeof startRegistration>[0]['optionsJSON']>('POST', '/api/session/passkeys/options');
  const response = await inBrowser((lib) => lib.startRegistration({ optionsJSON }));
  return api<Passkey>('POST', '/api/session/passkeys', name ? { name, response } : { response });
}

/** Signs in with a passkey: `key` given, as that key's second factor; else a person's passkey alone. */
export async function signInWithPasskey(key?: string): Promise<void> {
  const withKey = key ? { key } : {};
  const optionsJSON = await api<Parameters<typeof startAuthentication>[0]['optionsJSON']>('POST', '/api/session/passkey/options', withKey);
  const response = await inBrowser((lib) => lib.startAuthentication({ optionsJSON }));
  await api('POST', '/api/session/passkey', { ...withKey, response });
}
