// The passkeys of the signed-in key, token or person (a chunk of its own, with the WebAuthn
// code): add several, each with a name; rename and remove them. A key's passkey is its
// second factor at this page's sign-in; a person's signs them in alone.
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { ConfirmDialog } from '../confirm-dialog';
import { formatDate } from '../format';
import { t } from '../i18n';
import { LoadError, useLoad } from '../load';
import { notify } from '../notice';
import { currentWho } from '../role';
import { registerPasskey, type Passkey } from '../passkey-client';

function Row({ p, reload }: { p: Passkey; reload: () => void }) {
  const [naming, setNaming] = useState<string | null>(null);
  const [removing, setRemoving] = useState(false);
  const [error, setError] = useState('');
  const save = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      await api('PUT', `/api/session/passkeys/${p.id}`, { name: (naming ?? '').trim() });
      setNaming(null);
      notify(t('passkeys.renamed'));
      reload();
    } catch (err) { setError(describe(err)); }
  };
  const remove = async () => {
    await api('DELETE', `/api/session/passkeys/${p.id}`);
    setRemoving(false);
    notify(t('passkeys.removed'));
    reload();
  };
  return (
    <tr>
      <td>
        {naming === null ? p.name : (
          <form class="inline" onSubmit={save}>
            <label class="visually-hidden" for={`passkey-name-${p.id}`}>{t('passkeys.renameLabel', { name: p.name })}</label>
            <input id={`passkey-name-${p.id}`} value={naming} maxLength={64} onInput={(e) => setNaming((e.target as HTMLInputElement).value)} />
            <button type="submit" class="primary">{t('passkeys.save')}</button>
            <button type="button" onClick={() => setNaming(null)}>{t('passkeys.cancel')}</button>
            {error && <span class="form-error" role="alert">{error}</span>}
          </form>
        )}
      </td>
      <td>{formatDate(p.createdAt)}</td>
      <td>{p.lastUsedAt ? formatDate(p.lastUsedAt) : t('passkeys.never')}</td>
      <td class="actions">
        {naming === null && <button type="button" onClick={() => setNaming(p.name)} aria-label={`${t('passkeys.rename')}: ${p.name}`}>{t('passkeys.rename')}</button>}
        <button type="button" class="danger" onClick={() => setRemoving(true)} aria-label={`${t('passkeys.remove')}: ${p.name}`}>{t('passkeys.remove')}</button>
        {removing && (
          <ConfirmDialog title={t('passkeys.removeTitle', { name: p.name })} yes={t('passkeys.removeYes')} onYes={remove} onClose={() => setRemoving(false)}>
            <p>{t('passkeys.removeText')}</p>
          </ConfirmDialog>
        )}
      </td>
    </tr>
  );
}

export function Passkeys() {
  const who = currentWho();
  const list = useLoad(() => get<Passkey[]>('/api/session/passkeys'), []);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const add = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      const p = await registerPasskey(name.trim());
      setName('');
      notify(t('passkeys.added', { name: p.name }));
      list.reload();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="passkeys-h">
      <h2 id="passkeys-h">{t('passkeys.title')}</h2>
      <p>{who.kind === 'person' ? t('passkeys.intro.person') : t('passkeys.intro.key', { name: who.name })}</p>
      <LoadError error={list.error} reload={list.reload} />
      {list.data && list.data.length === 0 && <p>{t('passkeys.none')}</p>}
      {list.data && list.data.length > 0 && (
        <table class="passkeys">
          <thead><tr><th scope="col">{t('passkeys.col.name')}</th><th scope="col">{t('passkeys.col.created')}</th><th scope="col">{t('passkeys.col.used')}</th><th scope="col"><span class="visually-hidden">{t('passkeys.col.actions')}</span></th></tr></thead>
          <tbody>{list.data.map((p) => <Row key={p.id} p={p} reload={list.reload} />)}</tbody>
        </table>
      )}
      <form onSubmit={add} class="panel">
        <div class="field">
          <label for="passkey-name">{t('passkeys.name')}</label>
          <input id="passkey-name" value={name} maxLength={64} aria-describedby="passkey-name-hint" onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <p class="hint" id="passkey-name-hint">{t('passkeys.nameHint')}</p>
        </div>
        <div class="buttons"><button type="submit" class="primary" disabled={busy}>{busy ? t('passkeys.adding') : t('passkeys.add')}</button></div>
        {error && <p class="form-error" role="alert">{error}</p>}
      </form>
    </section>
  );
}
