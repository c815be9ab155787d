// Two-factor sign-in of the signed-in key or token: start (a QR code for the authenticator
// app, and its secret to type instead), confirm with a first code (the recovery codes,
// shown once), or turn off with a current code.
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { LoadError, useLoad } from '../load';
import { notify } from '../notice';
import { currentWho } from '../role';

interface State { enabled: boolean; pending: boolean; recoveryCodesLeft: number }

export function TwoFactor() {
  const who = currentWho();
  const state = useLoad(() => (who.credentialID === null ? Promise.resolve(null) : get<State>('/api/session/totp')), []);
  const [enrolment, setEnrolment] = useState<{ secret: string; qrSvg: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const run = async (fn: () => Promise<void>) => {
    setError('');
    try { await fn(); } catch (err) { setError(describe(err)); }
  };
  const start = () => run(async () => { setEnrolment(await api('POST', '/api/session/totp')); setCodes(null); });
  const confirm = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const done = await api<{ recoveryCodes: string[] }>('POST', '/api/session/totp/confirm', { code: code.trim() });
      setCodes(done.recoveryCodes);
      setEnrolment(null);
      setCode('');
      notify('Two-factor sign-in is on');
      state.reload();
    });
  };
  const turnOff = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      await api('DELETE', '/api/session/totp', { code: code.trim() });
      setCode('');
      notify('Two-factor sign-in is off');
      state.reload();
    });
  };
  const codeField = (label: string) => (
    <div class="field">
      <label for="totp-code">{label}</label>
      <input id="totp-code" inputMode="numeric" autoComplete="one-time-code" value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
    </div>
  );
  return (
    <section aria-labelledby="totp-h">
      <h2 id="totp-h">Two-factor sign-in</h2>
      {who.credentialID === null ? (
        <p>You signed in with the WGCP_API_KEY of wgcpd's environment, which has no two-factor sign-in. Sign in with a stored key or token to set it up.</p>
      ) : (
        <>
          <p>With it on, signing in here with <strong>{who.name}</strong> also needs a code from an authenticator app. The key itself still works alone for scripts.</p>
          <LoadError error={state.error} code={state.code} reload={state.reload} />
          {state.data && !state.data.enabled && !enrolment && <button type="button" class="primary" onClick={start}>Set up two-factor sign-in</button>}
          {enrolment && (
            <form onSubmit={confirm} class="panel">
              <p>Scan this with the authenticator app, then type the code it shows.</p>
              <div class="qr" role="img" aria-label="QR code of the two-factor secret" dangerouslySetInnerHTML={{ __html: enrolment.qrSvg }} />
              <p>Or type this secret: <code id="totp-secret">{enrolment.secret}</code></p>
              {codeField('Code from the app')}
              <div class="buttons"><button type="submit" class="primary">Turn on</button></div>
            </form>
          )}
          {codes && (
            <div class="panel" role="region" aria-labelledby="recovery-h">
              <h3 id="recovery-h">Recovery codes</h3>
              <p>Keep these somewhere safe: each signs in once without the phone. This page shows them only now.</p>
              <ul class="recovery">{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
            </div>
          )}
          {state.data?.enabled && (
            <form onSubmit={turnOff}>
              <p>On, with {state.data.recoveryCodesLeft} recovery codes left. A lost phone: <code>wgcp totp reset {who.credentialID}</code> on the router.</p>
              {codeField('A current code, to turn it off')}
              <div class="buttons"><button type="submit">Turn off</button></div>
            </form>
          )}
          {error && <p class="form-error" role="alert">{error}</p>}
        </>
      )}
    </section>
  );
}
