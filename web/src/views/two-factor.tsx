// Two-factor sign-in of the signed-in key or token: start (a QR code for the authenticator
// app, and its secret to type instead), confirm with a first code (the recovery codes,
// shown once), or turn off with a current code.
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { LoadError, useLoad } from '../load';
import { notify } from '../notice';
import { currentWho } from '../role';
import { t } from '../i18n';

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
      notify(t('totp.isOn'));
      state.reload();
    });
  };
  const turnOff = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      await api('DELETE', '/api/session/totp', { code: code.trim() });
      setCode('');
      notify(t('totp.isOff'));
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
      <h2 id="totp-h">{t('totp.title')}</h2>
      {who.credentialID === null ? (
        <p>{t('totp.envKey')}</p>
      ) : (
        <>
          <p>{t('totp.about', { name: who.name })}</p>
          <LoadError error={state.error} code={state.code} reload={state.reload} />
          {state.data && !state.data.enabled && !enrolment && <button type="button" class="primary" onClick={start}>{t('totp.setUp')}</button>}
          {enrolment && (
            <form onSubmit={confirm} class="panel">
              <p>{t('totp.scan')}</p>
              <div class="qr" role="img" aria-label={t('totp.qr')} dangerouslySetInnerHTML={{ __html: enrolment.qrSvg }} />
              <p>{t('totp.secret')} <code id="totp-secret">{enrolment.secret}</code></p>
              {codeField(t('totp.code'))}
              <div class="buttons"><button type="submit" class="primary">{t('totp.turnOn')}</button></div>
            </form>
          )}
          {codes && (
            <div class="panel" role="region" aria-labelledby="recovery-h">
              <h3 id="recovery-h">{t('totp.recovery')}</h3>
              <p>{t('totp.recoveryText')}</p>
              <ul class="recovery">{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
            </div>
          )}
          {state.data?.enabled && (
            <form onSubmit={turnOff}>
              <p>{t('totp.onLeft', { n: state.data.recoveryCodesLeft })} <code>wgcp totp reset {who.credentialID}</code></p>
              {codeField(t('totp.current'))}
              <div class="buttons"><button type="submit">{t('totp.turnOff')}</button></div>
            </form>
          )}
          {error && <p class="form-error" role="alert">{error}</p>}
        </>
      )}
    </section>
  );
}
