// Sign in with an API key or an access token: POST /api/session sets the session cookie.
// A key with two-factor sign-in is answered 401 naming the field "code": the form then asks
// for the authenticator app's code (or a recovery code) and sends both.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { FormError, TextField, useForm } from '../form';
import { useTitle } from '../load';

export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  useTitle('Sign in');
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
      if (e.status === 401 && e.field === 'key') throw Object.assign(err as Error, { message: 'This key or token is not valid, or no longer.' });
      if (e.status === 401 && e.field === 'code') throw Object.assign(err as Error, { message: 'This code is wrong or was used already: wait for the next one.' });
      throw err;
    }
    onSignedIn();
  });
  return (
    <main id="main" class="signin">
      <h1>wgcp</h1>
      <p>Sign in with an API key or an access token. The first API key is in the file <code>api-key</code> of wgcpd's data folder.</p>
      <form onSubmit={submit} noValidate>
        <TextField form={form} name="key" label="API key or access token" type="password" autoComplete="current-password" required autoFocus
          hint="Keys and tokens are made with the wgcp command: wgcp apikey create, wgcp token create." />
        {needsCode && (
          <TextField form={form} name="code" label="Two-factor code" autoComplete="one-time-code" inputMode="numeric" required
            hint="The 6-digit code of your authenticator app, or one of your recovery codes." />
        )}
        <FormError form={form} />
        <button type="submit" class="primary" disabled={form.busy}>{form.busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
