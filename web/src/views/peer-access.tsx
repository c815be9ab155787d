// allowAccess: the peers of the same server this peer may open connections to. Chosen by
// searching the server's peers by name or address; each change is saved at once.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, describe, get, getPage } from '../api';
import { notify } from '../notice';
import type { Peer } from '../types';

const label = (p: Pick<Peer, 'id' | 'name' | 'ip'>) => `${p.name || `peer ${p.id}`} (${p.ip})`;

export function PeerAccess({ peer, onSaved }: { peer: Peer; onSaved: (p: Peer) => void }) {
  const [names, setNames] = useState(new Map<number, string>());
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Peer[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    const missing = peer.allowAccess.filter((id) => !names.has(id));
    if (missing.length === 0) return;
    Promise.all(missing.map((id) => get<Peer>(`/api/peers/${id}`).then((p) => [id, label(p)] as const, () => [id, `peer ${id}`] as const)))
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
      <h2 id="access-h">May reach these peers</h2>
      <p class="hint" id="access-hint">Connections this peer may open to other peers of its server; their replies come back.</p>
      {peer.allowAccess.length === 0 ? <p>None.</p> : (
        <ul class="chips">
          {peer.allowAccess.map((id) => (
            <li key={id}>{names.get(id) ?? `peer ${id}`}{' '}
              <button type="button" class="quiet" onClick={() => save(peer.allowAccess.filter((x) => x !== id), `No longer reaches ${names.get(id) ?? id}`)}
                aria-label={`Remove ${names.get(id) ?? `peer ${id}`}`}>Remove</button>
            </li>
          ))}
        </ul>
      )}
      <div class="field">
        <label for="access-search">Find a peer to allow</label>
        <input id="access-search" type="search" value={q} autoComplete="off" aria-describedby={error ? 'access-hint access-error' : 'access-hint'}
          aria-invalid={error ? 'true' : undefined} onInput={(e) => setQ(e.currentTarget.value)} />
        {error && <p id="access-error" class="field-error">{error}</p>}
      </div>
      {found.length > 0 && (
        <ul class="choices" aria-label="Peers found">
          {found.map((p) => (
            <li key={p.id}>
              <button type="button" onClick={() => { setQ(''); save([...peer.allowAccess, p.id], `Now reaches ${label(p)}`); }}>Allow {label(p)}</button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
