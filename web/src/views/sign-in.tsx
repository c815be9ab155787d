// Sign in with an API key or an access token: POST /api/session sets the session cookie.
// A key with two-factor sign-in is answered 401 naming the field "code": the form then asks
// for the authenticator app's code (or a recovery code) and sends both. As a page at first;
// as a dialog over the open view when a session ends, so nothing typed in that view is lost.
// A key with passkeys is answered 401 naming "passkey" (or "code" when it has TOTP too): the
// form then offers its passkey. A person's passkey signs in alone (beside single sign-on).
// The WebAuthn code is a chunk of its own, fetched at the first use of a passkey.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describe } from '../api';
import { signInWithPasskey } from '../passkey-client';
import { FormError, TextField, useForm } from '../form';
import { useTitle } from '../load';
import { LanguageSwitch, t } from '../i18n';

export const NEW_KEY_HOW = 'To make a new API key, run wgcp apikey create on the router with the daemon\'s data folder: '
  + 'wgcp apikey create --data-dir /var/lib/wgcp (from a clone, where npm start keeps it: --data-dir ./var).';

/** Signs in with a passkey (`key`: as its second factor). */
const passkeySignIn = (key?: string) => signInWithPasskey(key);

/** A passkey button with its own busy state and error. */
function PasskeyButton({ text, run, onSignedIn }: { text: string; run: () => Promise<void>; onSignedIn: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const go = async () => {
    setBusy(true);
    setError('');
    try {
      await run();
      onSignedIn();
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };
  return (
    <div class="passkey-sign-in">
      <button type="button" class="primary" disabled={busy} onClick={go}>{busy ? t('signin.passkeyBusy') : text}</button>
      {error && <p class="form-error" role="alert">{error}</p>}
    </div>
  );
}

function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const form = useForm('signin', { key: '', code: '' });
  const [needsCode, setNeedsCode] = useState(false);
  const [needsPasskey, setNeedsPasskey] = useState(false);
  const submit = form.submit(async () => {
    try {
      await api('POST', '/api/session', needsCode ? { key: form.values.key, code: form.values.code.trim() } : { key: form.values.key });
    } catch (err) {
      const e = err as { status?: number; field?: string; message: string };
      if (e.status === 401 && e.field === 'passkey') {
        setNeedsPasskey(true);
        return;
      }
      if (e.status === 401 && e.field === 'code' && !needsCode) {
        setNeedsCode(true);
        setTimeout(() => document.getElementById('signin-code')?.focus());
        return;
      }
      // "unauthorized" is the API's word; beside the field a person reads this instead.
      if (e.status === 401 && e.field === 'code') throw Object.assign(err as Error, { message: 'This code is wrong or was used already: wait for the next one.' });
      if (e.status === 401) throw Object.assign(err as Error, { message: 'This key or token is not valid: it may be mistyped, revoked or expired.' });
      throw err;
    }
    onSignedIn();
  });
  return (
    <form onSubmit={submit} noValidate>
      <TextField form={form} name="key" label={t('signin.key')} type="password" autoComplete="current-password" required autoFocus
        hint="Keys and tokens are made with the wgcp command: wgcp apikey create, wgcp token create (with WGCP_DATA_DIR set to the daemon's data folder)." />
      {needsCode && (
        <TextField form={form} name="code" label="Two-factor code" autoComplete="one-time-code" inputMode="numeric" required
          hint="The 6-digit code of your authenticator app, or one of your recovery codes." />
      )}
      <FormError form={form} />
      {needsPasskey && <p role="status">{t('signin.passkeyNeeded')}</p>}
      {(needsPasskey || needsCode) && <PasskeyButton text={t('signin.usePasskey')} run={() => passkeySignIn(form.values.key)} onSignedIn={onSignedIn} />}
      {!needsPasskey && <button type="submit" class="primary" disabled={form.busy}>{form.busy ? t('signin.busy') : t('signin.button')}</button>}
    </form>
  );
}

interface WaysIn { singleSignOn: boolean; keySignIn: boolean }

/** Single sign-on is a link: the browser goes to the provider and comes back signed in. */
const SingleSignOn = ({ ways }: { ways: WaysIn }) => (ways.singleSignOn
  ? <p><a class="button primary" href="api/oidc/login">Sign in with single sign-on</a></p> : null);

/** A person's passkey signs in alone; people exist only with single sign-on set up. */
const PersonPasskey = ({ ways, onSignedIn }: { ways: WaysIn; onSignedIn: () => void }) => (ways.singleSignOn
  ? <PasskeyButton text={t('signin.passkey')} run={() => passkeySignIn()} onSignedIn={onSignedIn} /> : null);

export function SignIn({ onSignedIn, note = '', ways }: { onSignedIn: () => void; note?: string; ways: WaysIn }) {
  useTitle(t('signin.title'));
  return (
    <main id="main" class="signin">
      <div class="bar"><h1>wgcp</h1><LanguageSwitch /></div>
      <SingleSignOn ways={ways} />
      <PersonPasskey ways={ways} onSignedIn={onSignedIn} />
      {!ways.keySignIn ? null : note ? (
        <div class="form-error" role="alert"><p>{note}</p><p>{NEW_KEY_HOW}</p></div>
      ) : (
        <p>{t('signin.intro', { file: '\u0000', command: '\u0001' }).split(/([\u0000\u0001])/).map((part) => (part === '\u0000' ? <code>api-key</code> : part === '\u0001' ? <code>wgcp apikey create</code> : part))}</p>
      )}
      {ways.keySignIn && <SignInForm onSignedIn={onSignedIn} />}
    </main>
  );
}

export function SignInDialog({ onSignedIn, ways }: { onSignedIn: () => void; ways: WaysIn }) {
  const dialog = useRef<HTMLDialogElement>(null);
  // Modal: the view behind stays as it was but cannot be used until signed in again.
  useEffect(() => { if (!dialog.current?.open) dialog.current?.showModal(); }, []);
  return (
    <dialog ref={dialog} class="signin-dialog" aria-labelledby="signin-dialog-h" onCancel={(e) => e.preventDefault()}>
      <h2 id="signin-dialog-h">Your session ended</h2>
      <p>Sign in again to go on. What you typed on this page is kept: save it again once signed in.</p>
      <SingleSignOn ways={ways} />
      <PersonPasskey ways={ways} onSignedIn={onSignedIn} />
      {ways.keySignIn && <SignInForm onSignedIn={onSignedIn} />}
    </dialog>
  );
}
