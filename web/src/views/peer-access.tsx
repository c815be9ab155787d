// allowAccess: the peers of the same server this peer may open connections to. Chosen by
// searching the server's peers by name or address; each change is saved at once.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, describe, get, getPage } from '../api';
import { notify } from '../notice';
import type { Peer } from '../types';
import { t } from '../i18n';

const label = (p: Pick<Peer, 'id' | 'name' | 'ip'>) => `${p.name || t('peer.unnamed', { id: p.id })} (${p.ip})`;

export function PeerAccess({ peer, onSaved }: { peer: Peer; onSaved: (p: Peer) => void }) {
  const [names, setNames] = useState(new Map<number, string>());
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Peer[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    const missing = peer.allowAccess.filter((id) => !names.has(id));
    if (missing.length === 0) return;
    Promise.all(missing.map((id) => get<Peer>(`/api/peers/${id}`).then((p) => [id, label(p)] as const, () => [id, t('peer.unnamed', { id })] as const)))
      .then((pairs) => setNames((m) => new Map([...m, ...pairs])));
  }, [peer.allowAccess.join(',')]);
  useEffect(() => {
    if (!q.trim()) { setFound([]); return; }
    let current = true;
    getPage<Peer>(`/api/servers/${peer.serverID}/peers?limit=8&sort=name&q=${encodeURIComponent(q.trim())}`)
      .then((r) => { if (current) setFound(r.items.filter((p) => p.id !== peer.id && !peer.allowAccess.includes(p.id))); }, () => {});
    return () => { current = false; };
  }, [q, peer.allowAccess.join(',')]);

  const save = async (ids: number[], what: string) => {
    setError('');
    try {
      onSaved(await api<Peer>('PUT', `/api/peers/${peer.id}`, { allowAccess: ids }));
      notify(what);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : describe(err));
    }
  };
  return (
    <section aria-labelledby="access-h">
      <h2 id="access-h">{t('access.title')}</h2>
      <p class="hint" id="access-hint">{t('access.hint')}</p>
      {peer.allowAccess.length === 0 ? <p>{t('access.none')}</p> : (
        <ul class="chips">
          {peer.allowAccess.map((id) => (
            <li key={id}>{names.get(id) ?? t('peer.unnamed', { id })}{' '}
              <button type="button" class="quiet" onClick={() => save(peer.allowAccess.filter((x) => x !== id), t('access.removed', { name: names.get(id) ?? String(id) }))}
                aria-label={t('access.removeOne', { name: names.get(id) ?? t('peer.unnamed', { id }) })}>{t('access.remove')}</button>
            </li>
          ))}
        </ul>
      )}
      <div class="field">
        <label for="access-search">{t('access.find')}</label>
        <input id="access-search" type="search" value={q} autoComplete="off" aria-describedby={error ? 'access-hint access-error' : 'access-hint'}
          aria-invalid={error ? 'true' : undefined} onInput={(e) => setQ(e.currentTarget.value)} />
        {error && <p id="access-error" class="field-error">{error}</p>}
      </div>
      {found.length > 0 && (
        <ul class="choices" aria-label={t('access.found')}>
          {found.map((p) => (
            <li key={p.id}>
              <button type="button" onClick={() => { setQ(''); save([...peer.allowAccess, p.id], t('access.added', { name: label(p) })); }}>{t('access.allow', { name: label(p) })}</button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
