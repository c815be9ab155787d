// A server's registration tokens: a device enrols with one (single use, valid 24 h). A new
// token is shown whole once, with a copy button; the list shows the start of each.
import { Cell } from '../cell';
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { formatDate } from '../format';
import { LoadError, useLoad } from '../load';
import { notify } from '../notice';
import { href } from '../router';
import type { RegToken } from '../types';
import { copyField as copy } from '../copy';

export function RegTokens({ serverId }: { serverId: string }) {
  const list = useLoad(() => get<RegToken[]>(`/api/servers/${serverId}/tokens`), [serverId]);
  const [fresh, setFresh] = useState<RegToken | null>(null);
  const [error, setError] = useState('');
  const create = async () => {
    setError('');
    try {
      setFresh(await api<RegToken>('POST', `/api/servers/${serverId}/tokens`));
      list.reload();
    } catch (err) { setError(describe(err)); }
  };
  const revoke = async (t: RegToken) => {
    await api('DELETE', `/api/tokens/${t.token}`).then(() => notify('Token revoked'), (err) => setError(describe(err)));
    if (fresh?.token === t.token) setFresh(null);
    list.reload();
  };
  let input: HTMLInputElement | null = null;
  return (
    <section aria-labelledby="tokens-h">
      <div class="bar">
        <h2 id="tokens-h">Registration tokens</h2>
        <button type="button" class="primary" onClick={create}>Make a token</button>
      </div>
      <p>A device's agent enrols with a token in its config file. Each token works once, for 24 hours.</p>
      {error && <p class="form-error" role="alert">{error}</p>}
      {fresh && (
        <div class="panel" role="region" aria-labelledby="fresh-h">
          <h3 id="fresh-h">New token</h3>
          <p>Copy it now: this page shows it whole only this once.</p>
          <div class="copy">
            <label for="fresh-token" class="visually-hidden">New registration token</label>
            <input id="fresh-token" readOnly value={fresh.token} ref={(el) => { input = el; }} />
            <button type="button" onClick={async () => { if (input && (await copy(input))) notify('Token copied'); }}>Copy</button>
          </div>
          <p class="hint">Valid until {formatDate(fresh.expiresAt)}.</p>
        </div>
      )}
      <LoadError error={list.error} code={list.code} reload={list.reload} />
      {list.data && list.data.length > 0 && (
        <div class="table-wrap stack">
          <table>
            <thead><tr><th scope="col">Token</th><th scope="col">State</th><th scope="col">Valid until</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {list.data.map((t) => (
                <tr key={t.token}>
                  <Cell label="Token"><code>{t.token.slice(0, 8)}…</code></Cell>
                  <Cell label="State">{t.state}{t.deviceID !== null && <> by <a href={href('devices', t.deviceID)}>device {t.deviceID}</a></>}</Cell>
                  <Cell label="Valid until">{formatDate(t.expiresAt)}</Cell>
                  <td>{t.state === 'unused' && <button type="button" class="quiet" onClick={() => revoke(t)} aria-label={`Revoke token ${t.token.slice(0, 8)}`}>Revoke</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
