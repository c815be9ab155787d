// A server's registration tokens: a device enrols with one (single use, valid 24 h). A new
// token is shown whole once, with a copy button; the list shows the start of each.
import { Cell } from '../cell';
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { formatDate } from '../format';
import { t } from '../i18n';
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
  const revoke = async (tok: RegToken) => {
    await api('DELETE', `/api/tokens/${tok.token}`).then(() => notify(t('tokens.revoked')), (err) => setError(describe(err)));
    if (fresh?.token === tok.token) setFresh(null);
    list.reload();
  };
  let input: HTMLInputElement | null = null;
  return (
    <section aria-labelledby="tokens-h">
      <div class="bar">
        <h2 id="tokens-h">{t('tokens.title')}</h2>
        <button type="button" class="primary" onClick={create}>{t('tokens.make')}</button>
      </div>
      <p>{t('tokens.about')}</p>
      {error && <p class="form-error" role="alert">{error}</p>}
      {fresh && (
        <div class="panel" role="region" aria-labelledby="fresh-h">
          <h3 id="fresh-h">{t('tokens.new')}</h3>
          <p>{t('tokens.copyNow')}</p>
          <div class="copy">
            <label for="fresh-token" class="visually-hidden">{t('tokens.newLabel')}</label>
            <input id="fresh-token" readOnly value={fresh.token} ref={(el) => { input = el; }} />
            <button type="button" onClick={async () => { if (input && (await copy(input))) notify(t('tokens.copied')); }}>{t('copy.button')}</button>
          </div>
          <p class="hint">{t('tokens.validUntil', { when: formatDate(fresh.expiresAt) })}</p>
        </div>
      )}
      <LoadError error={list.error} code={list.code} reload={list.reload} />
      {list.data && list.data.length > 0 && (
        <div class="table-wrap stack">
          <table>
            <thead><tr><th scope="col">{t('tokens.token')}</th><th scope="col">{t('peer.state')}</th><th scope="col">{t('tokens.until')}</th><th scope="col"><span class="visually-hidden">{t('f.actions')}</span></th></tr></thead>
            <tbody>
              {list.data.map((tok) => (
                <tr key={tok.token}>
                  <Cell label={t('tokens.token')}><code>{tok.token.slice(0, 8)}…</code></Cell>
                  <Cell label={t('peer.state')}>{tok.state === 'unused' ? t('tokens.unused') : tok.state === 'used' ? t('share.used') : tok.state === 'expired' ? t('share.expired') : tok.state}{tok.deviceID !== null && <> {t('tokens.by')} <a href={href('devices', tok.deviceID)}>{t('tokens.device', { id: tok.deviceID })}</a></>}</Cell>
                  <Cell label={t('tokens.until')}>{formatDate(tok.expiresAt)}</Cell>
                  <td>{tok.state === 'unused' && <button type="button" class="quiet" onClick={() => revoke(tok)} aria-label={t('tokens.revokeOne', { token: tok.token.slice(0, 8) })}>{t('cred.revoke')}</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
