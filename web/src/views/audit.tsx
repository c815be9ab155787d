// The audit log (admins): who did what, when and from where, newest first, filtered by
// actor, target and action, a page at a time.
import { useState } from 'preact/hooks';
import { describe, get } from '../api';
import { formatDate } from '../format';
import { useTitle } from '../load';
import type { AuditEntry } from '../types';

interface Page { entries: AuditEntry[]; nextCursor: number | null }
const FILTERS = [
  { name: 'actor', label: 'Actor', hint: 'apikey, token, page, job, cli, share; or kind:id' },
  { name: 'target', label: 'Target', hint: 'peer, server, apikey…; or type:id' },
  { name: 'action', label: 'Action', hint: 'e.g. share, peer.update' },
] as const;

const actorText = (e: AuditEntry) => `${e.actor.kind}${e.actor.id !== null ? ` ${e.actor.id}` : ''}${e.actor.name ? ` (${e.actor.name})` : ''}`;

export function Audit() {
  useTitle('Audit log');
  const [filter, setFilter] = useState<Record<string, string>>({ actor: '', target: '', action: '' });
  const [rows, setRows] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState('');
  const load = async (cursor: number | null) => {
    setError('');
    const q = new URLSearchParams({ limit: '50' });
    for (const [k, v] of Object.entries(filter)) if (v.trim()) q.set(k, v.trim());
    if (cursor !== null) q.set('cursor', String(cursor));
    try {
      const page = await get<Page>(`/api/audit?${q}`);
      setRows((was) => (cursor === null ? page.entries : [...(was ?? []), ...page.entries]));
      setNext(page.nextCursor);
    } catch (err) { setError(describe(err)); }
  };
  if (rows === null && !error) void load(null);
  return (
    <>
      <h1>Audit log</h1>
      <form class="cols" onSubmit={(e) => { e.preventDefault(); void load(null); }}>
        {FILTERS.map((f) => (
          <div class="field" key={f.name}>
            <label for={`audit-${f.name}`}>{f.label}</label>
            <input id={`audit-${f.name}`} value={filter[f.name]} placeholder={f.hint} onInput={(e) => setFilter({ ...filter, [f.name]: (e.target as HTMLInputElement).value })} />
          </div>
        ))}
        <div class="buttons"><button type="submit" class="primary">Filter</button></div>
      </form>
      {error && <p class="form-error" role="alert">{error}</p>}
      {rows && rows.length === 0 && <p>Nothing recorded matches.</p>}
      {rows && rows.length > 0 && (
        // Seven columns scroll sideways on a phone: the region takes the keyboard's focus to scroll.
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Audit log entries">
          <table>
            <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Role</th><th scope="col">From</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Details</th></tr></thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td>{formatDate(e.at)}</td>
                  <td>{actorText(e)}</td>
                  <td>{e.role ?? ''}</td>
                  <td>{e.address ?? ''}</td>
                  <th scope="row">{e.action}</th>
                  <td>{e.targetType}{e.targetId !== null ? ` ${e.targetId}` : ''}</td>
                  <td><code>{Object.keys(e.summary).length ? JSON.stringify(e.summary) : ''}</code></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next !== null && <p><button type="button" onClick={() => load(next)}>Older entries</button></p>}
    </>
  );
}
