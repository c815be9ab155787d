// Sign in with an API key or an access token: POST /api/session sets the session cookie.
// A key with two-factor sign-in is answered 401 naming the field "code": the form then asks
// for the authenticator app's code (or a recovery code) and sends both. As a page at first;
// as a dialog over the open view when a session ends, so nothing typed in that view is lost.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { FormError, TextField, useForm } from '../form';
import { useTitle } from '../load';

export const NEW_KEY_HOW = 'To make a new API key, run wgcp apikey create on the router with the daemon\'s data folder: '
  + 'wgcp apikey create --data-dir /var/lib/wgcp (from a clone, where npm start keeps it: --data-dir ./var).';

function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const form = useForm('signin', { key: '', code: '' });
  const [needsCode, setNeedsCode] = useState(false);
  const submit = form.submit(async () => {
    try {
      await api('POST', '/api/session', needsCode ? { key: form.values.key, code: form.values.code.trim() } : { key: form.values.key });
    } catch (err) {
      const e = err as { status?: number; field?: string; message: string };
      if (e.status === 401 && e.field === 'code' && !needsCode) {
        setNeedsCode(true);
        setTimeout(() => document.getElementById('signin-code')?.focus());
        return;
      }
      // "unauthorized" is the API's word; beside the field a person reads this instead.
      if (e.status === 401 && e.field === 'code') throw Object.assign(err as Error, { message: 'This code is wrong or was used already: wait for the next one.' });
      if (e.status === 401) throw Object.assign(err as Error, { message: 'This key or token is not valid, or no longer.' });
      throw err;
    }
    onSignedIn();
  });
  return (
    <form onSubmit={submit} noValidate>
      <TextField form={form} name="key" label="API key or access token" type="password" autoComplete="current-password" required autoFocus
        hint="Keys and tokens are made with the wgcp command: wgcp apikey create, wgcp token create (with WGCP_DATA_DIR set to the daemon's data folder)." />
      {needsCode && (
        <TextField form={form} name="code" label="Two-factor code" autoComplete="one-time-code" inputMode="numeric" required
          hint="The 6-digit code of your authenticator app, or one of your recovery codes." />
      )}
      <FormError form={form} />
      <button type="submit" class="primary" disabled={form.busy}>{form.busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  );
}

interface WaysIn { singleSignOn: boolean; keySignIn: boolean }

/** Single sign-on is a link: the browser goes to the provider and comes back signed in. */
const SingleSignOn = ({ ways }: { ways: WaysIn }) => (ways.singleSignOn
  ? <p><a class="button primary" href="api/oidc/login">Sign in with single sign-on</a></p> : null);

export function SignIn({ onSignedIn, note = '', ways }: { onSignedIn: () => void; note?: string; ways: WaysIn }) {
  useTitle('Sign in');
  return (
    <main id="main" class="signin">
      <h1>wgcp</h1>
      <SingleSignOn ways={ways} />
      {!ways.keySignIn ? null : note ? (
        <div class="form-error" role="alert"><p>{note}</p><p>{NEW_KEY_HOW}</p></div>
      ) : (
        <p>Sign in with an API key or an access token. The first API key is in the file <code>api-key</code> of wgcpd's data folder
          (unless it was revoked: then make a new one with <code>wgcp apikey create</code>).</p>
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
      {ways.keySignIn && <SignInForm onSignedIn={onSignedIn} />}
    </dialog>
  );
}
