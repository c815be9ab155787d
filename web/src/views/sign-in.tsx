// Sign in with an API key or an access token: POST /api/session sets the session cookie.
import { api } from '../api';
import { FormError, TextField, useForm } from '../form';
import { useTitle } from '../load';

export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  useTitle('Sign in');
  const form = useForm('signin', { key: '' });
  const submit = form.submit(async () => {
    try {
      await api('POST', '/api/session', { key: form.values.key });
    } catch (err) {
      // "unauthorized" is the API's word; beside the field a person reads this instead.
      if ((err as { status?: number }).status === 401) throw Object.assign(err as Error, { message: 'This key or token is not valid, or no longer.' });
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
        <FormError form={form} />
        <button type="submit" class="primary" disabled={form.busy}>{form.busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
