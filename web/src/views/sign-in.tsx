// Sign in with an API key or an access token: POST /api/session sets the session cookie.
// A key with two-factor sign-in is answered 401 naming the field "code": the form then asks
// for the authenticator app's code (or a recovery code) and sends both. As a page at first;
// as a dialog over the open view when a session ends, so nothing typed in that view is lost.
// A key with passkeys is answered 401 WGCP_PASSKEY_REQUIRED (WGCP_TOTP_CODE_REQUIRED when it
// has TOTP too): the form then offers its passkey (beside the code). A person's passkey signs
// in alone (beside single sign-on). The WebAuthn code is a chunk of its own, fetched at the
// first use of a passkey (passkey-client.ts).
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, describe } from '../api';
import { signInWithPasskey } from '../passkey-client';
import { FormError, TextField, useForm } from '../form';
import { useTitle } from '../load';
import { LanguageSwitch, t } from '../i18n';

export const newKeyHow = () => t('signin.newKey', { command: 'wgcp apikey create --data-dir /var/lib/wgcp', clone: '--data-dir ./var' });

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
      const code = err instanceof ApiError ? err.code : '';
      if (code === 'WGCP_PASSKEY_REQUIRED') {
        setNeedsPasskey(true);
        return;
      }
      if (code === 'WGCP_TOTP_CODE_REQUIRED' && !needsCode) {
        setNeedsCode(true);
        setTimeout(() => document.getElementById('signin-code')?.focus());
        return;
      }
      // "unauthorized" is the API's word; beside the field a person reads this instead.
      if (code === 'WGCP_TOTP_CODE_WRONG' || code === 'WGCP_TOTP_CODE_REQUIRED') throw Object.assign(err as Error, { message: t('signin.wrongCode') });
      if (code === 'WGCP_UNAUTHORIZED') throw Object.assign(err as Error, { message: t('signin.wrongKey') });
      throw err;
    }
    onSignedIn();
  });
  return (
    <form onSubmit={submit} noValidate>
      <TextField form={form} name="key" label={t('signin.key')} type="password" autoComplete="current-password" required autoFocus
        hint={t('signin.keyHint', { apikey: 'wgcp apikey create', token: 'wgcp token create', dir: 'WGCP_DATA_DIR' })} />
      {needsCode && (
        <TextField form={form} name="code" label={t('signin.code')} autoComplete="one-time-code" inputMode="numeric" required
          hint={t('signin.codeHint')} />
      )}
      <FormError form={form} />
      {needsPasskey && <p role="status">{t('signin.passkeyNeeded')}</p>}
      {(needsPasskey || needsCode) && <PasskeyButton text={t('signin.usePasskey')} run={() => signInWithPasskey(form.values.key)} onSignedIn={onSignedIn} />}
      {!needsPasskey && <button type="submit" class="primary" disabled={form.busy}>{form.busy ? t('signin.busy') : t('signin.button')}</button>}
    </form>
  );
}

interface WaysIn { singleSignOn: boolean; keySignIn: boolean }

/** Single sign-on is a link: the browser goes to the provider and comes back signed in. */
const SingleSignOn = ({ ways }: { ways: WaysIn }) => (ways.singleSignOn
  ? <p><a class="button primary" href="api/oidc/login">{t('signin.sso')}</a></p> : null);

/** A person's passkey signs in alone; people exist only with single sign-on set up. */
const PersonPasskey = ({ ways, onSignedIn }: { ways: WaysIn; onSignedIn: () => void }) => (ways.singleSignOn
  ? <PasskeyButton text={t('signin.passkey')} run={() => signInWithPasskey()} onSignedIn={onSignedIn} /> : null);

export function SignIn({ onSignedIn, note = '', ways }: { onSignedIn: () => void; note?: string; ways: WaysIn }) {
  useTitle(t('signin.title'));
  return (
    <main id="main" class="signin">
      <div class="bar"><h1>wgcp</h1><LanguageSwitch /></div>
      <SingleSignOn ways={ways} />
      <PersonPasskey ways={ways} onSignedIn={onSignedIn} />
      {!ways.keySignIn ? null : note ? (
        <div class="form-error" role="alert"><p>{note}</p><p>{newKeyHow()}</p></div>
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
      <h2 id="signin-dialog-h">{t('signin.ended')}</h2>
      <p>{t('signin.endedText')}</p>
      <SingleSignOn ways={ways} />
      <PersonPasskey ways={ways} onSignedIn={onSignedIn} />
      {ways.keySignIn && <SignInForm onSignedIn={onSignedIn} />}
    </dialog>
  );
}
