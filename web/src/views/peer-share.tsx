// One-time links to the peer's config (operators): make one valid for up to 7 days, copy
// its address (shown only now), see which were used, revoke a live one.
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { copyField } from '../copy';
import { formatDate } from '../format';
import { LoadError, useLoad } from '../load';
import { notify } from '../notice';
import type { Share } from '../types';
import { t } from '../i18n';

const stateWords = (state: string): string =>
  ({ live: t('share.live'), used: t('share.used'), revoked: t('share.stateRevoked'), expired: t('share.expired') } as Record<string, string>)[state] ?? state;

export function PeerShare({ peerId }: { peerId: number }) {
  const list = useLoad(() => get<Share[]>(`/api/peers/${peerId}/shares`), [peerId]);
  const [hours, setHours] = useState('24');
  const [fresh, setFresh] = useState<string | null>(null);
  const [error, setError] = useState('');
  let input: HTMLInputElement | null = null;
  const make = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const made = await api<{ url: string }>('POST', `/api/peers/${peerId}/share`, { expiresInHours: Number(hours) });
      setFresh(made.url);
      list.reload();
    } catch (err) { setError(describe(err)); }
  };
  const revoke = async (s: Share) => {
    await api('DELETE', `/api/shares/${s.id}`).then(() => notify(t('share.revoked')), (err) => setError(describe(err)));
    list.reload();
  };
  return (
    <section aria-labelledby="share-h">
      <h2 id="share-h">{t('share.title')}</h2>
      <p>{t('share.about')}</p>
      <form class="cols" onSubmit={make}>
        <div class="field">
          <label for="share-hours">{t('share.hours', { max: 168 })}</label>
          <input id="share-hours" type="number" min={1} max={168} value={hours} onInput={(e) => setHours((e.target as HTMLInputElement).value)} />
        </div>
        <div class="buttons"><button type="submit">{t('share.make')}</button></div>
      </form>
      {error && <p class="form-error" role="alert">{error}</p>}
      {fresh && (
        <div class="copy">
          <label for="share-url" class="visually-hidden">{t('share.new')}</label>
          <input id="share-url" readOnly value={fresh} ref={(el) => { input = el; }} />
          <button type="button" onClick={async () => { if (input && (await copyField(input))) notify(t('share.copied')); }}>{t('copy.button')}</button>
        </div>
      )}
      <LoadError error={list.error} code={list.code} reload={list.reload} />
      {list.data && list.data.length > 0 && (
        <ul class="shares">
          {list.data.map((s) => (
            <li key={s.id}>
              {t('share.made', { when: formatDate(s.createdAt), who: s.createdBy || t('share.someone') })} <strong>{stateWords(s.state)}</strong>
              {s.state === 'live' && <> {t('share.until', { when: formatDate(s.expiresAt) })} <button type="button" class="quiet" onClick={() => revoke(s)}>{t('cred.revoke')}</button></>}
              {s.state === 'used' && s.usedAt && <> {formatDate(s.usedAt)}</>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
