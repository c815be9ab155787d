// The backup, downloaded through the session: plain, or encrypted with a passphrase sent as
// the wgcp-backup-passphrase header (an empty passphrase is not sent: a plain file).
import { useState } from 'preact/hooks';
import { describe, getFile } from '../api';
import { saveFile } from '../conf-file';
import { notify } from '../notice';
import { t } from '../i18n';

const MIN_PASSPHRASE = 8;

export function BackupDownload() {
  const [passphrase, setPassphrase] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const download = async (e: Event) => {
    e.preventDefault();
    setError('');
    if (passphrase && passphrase.length < MIN_PASSPHRASE) return setError(t('backup.short', { n: MIN_PASSPHRASE }));
    setBusy(true);
    try {
      const file = await getFile('/api/backup', passphrase ? { 'wgcp-backup-passphrase': passphrase } : {});
      saveFile(file.name, file.blob);
      notify(passphrase ? t('backup.doneEncrypted') : t('backup.done'));
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="backup-h">
      <h2 id="backup-h">{t('backup.title')}</h2>
      <p>{t('backup.about')} <code>wgcp restore FILE</code></p>
      <form onSubmit={download} noValidate>
        <div class="field">
          <label for="backup-passphrase">{t('backup.passphrase')}</label>
          <input id="backup-passphrase" type="password" autoComplete="new-password" value={passphrase}
            aria-describedby={error ? 'backup-passphrase-hint backup-passphrase-error' : 'backup-passphrase-hint'} aria-invalid={error ? 'true' : undefined}
            onInput={(e) => setPassphrase(e.currentTarget.value)} />
          <p id="backup-passphrase-hint" class="hint">{t('backup.hint', { n: MIN_PASSPHRASE })} <code>wgcp restore FILE --passphrase-file F</code></p>
          {error && <p id="backup-passphrase-error" class="field-error">{error}</p>}
        </div>
        <div class="buttons"><button type="submit" disabled={busy}>{busy ? t('backup.busy') : t('backup.download')}</button></div>
      </form>
    </section>
  );
}
