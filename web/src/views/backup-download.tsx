// The backup, downloaded through the session: plain, or encrypted with a passphrase sent as
// the wgcp-backup-passphrase header (an empty passphrase is not sent: a plain file).
import { useState } from 'preact/hooks';
import { describe, getFile } from '../api';
import { saveFile } from '../conf-file';
import { notify } from '../notice';

const MIN_PASSPHRASE = 8;

export function BackupDownload() {
  const [passphrase, setPassphrase] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const download = async (e: Event) => {
    e.preventDefault();
    setError('');
    if (passphrase && passphrase.length < MIN_PASSPHRASE) return setError(`Passphrase must be at least ${MIN_PASSPHRASE} characters, or empty for a plain file.`);
    setBusy(true);
    try {
      const file = await getFile('/api/backup', passphrase ? { 'wgcp-backup-passphrase': passphrase } : {});
      saveFile(file.name, file.blob);
      notify(passphrase ? 'Encrypted backup downloaded' : 'Backup downloaded');
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="backup-h">
      <h2 id="backup-h">Backup</h2>
      <p>A consistent copy of the whole state, keys included: keep it as safe as the router. Restore it with <code>wgcp restore FILE</code>.</p>
      <form onSubmit={download} noValidate>
        <div class="field">
          <label for="backup-passphrase">Passphrase (empty: a plain file)</label>
          <input id="backup-passphrase" type="password" autoComplete="new-password" value={passphrase}
            aria-describedby={error ? 'backup-passphrase-hint backup-passphrase-error' : 'backup-passphrase-hint'} aria-invalid={error ? 'true' : undefined}
            onInput={(e) => setPassphrase(e.currentTarget.value)} />
          <p id="backup-passphrase-hint" class="hint">With a passphrase of at least {MIN_PASSPHRASE} characters the file is encrypted;
            restore it with <code>wgcp restore FILE --passphrase-file F</code>.</p>
          {error && <p id="backup-passphrase-error" class="field-error">{error}</p>}
        </div>
        <div class="buttons"><button type="submit" disabled={busy}>{busy ? 'Preparing…' : 'Download a backup'}</button></div>
      </form>
    </section>
  );
}
