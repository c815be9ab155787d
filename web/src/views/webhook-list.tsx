// A server's webhooks, and a form to add one.
import { Cell } from '../cell';
import { can } from '../role';
import { useState } from 'preact/hooks';
import { get } from '../api';
import { LoadError, useLoad } from '../load';
import { notify } from '../notice';
import { href } from '../router';
import type { Webhook } from '../types';
import { t } from '../i18n';
import { WebhookForm } from './webhook-form';

export function WebhookList({ serverId }: { serverId: string }) {
  const hooks = useLoad(() => get<Webhook[]>(`/api/servers/${serverId}/webhooks`), [serverId]);
  const [adding, setAdding] = useState(false);
  return (
    <section aria-labelledby="hooks-h">
      <div class="bar">
        <h2 id="hooks-h">{t('hooks.title')}</h2>
        {!adding && can('admin') && <button type="button" class="primary" onClick={() => setAdding(true)}>{t('hook.add')}</button>}
      </div>
      <LoadError error={hooks.error} code={hooks.code} reload={hooks.reload} />
      {hooks.data && hooks.data.length === 0 && <p>{t('hook.none')}</p>}
      {hooks.data && hooks.data.length > 0 && (
        <div class="table-wrap stack">
          <table>
            <thead><tr><th scope="col">{t('f.name')}</th><th scope="col">URL</th><th scope="col">{t('peer.state')}</th><th scope="col">{t('hook.events')}</th></tr></thead>
            <tbody>
              {hooks.data.map((w) => (
                <tr key={w.id}>
                  <th scope="row"><a href={href('webhooks', w.id)}>{w.name || t('hook.unnamed', { id: w.id })}</a></th>
                  <Cell label="URL"><code class="key">{w.url}</code></Cell>
                  <Cell label={t('peer.state')}>{w.isEnabled ? t('hook.on') : t('hook.off')}{w.isGlobal ? `, ${t('hook.everyServer')}` : ''}</Cell>
                  <Cell label={t('hook.events')}>{w.subscribedActions.length === 0 ? t('hook.all') : w.subscribedActions.join(', ')}</Cell>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {adding && (
        <section aria-labelledby="newhook-h" class="panel">
          <h3 id="newhook-h">{t('hook.new')}</h3>
          <WebhookForm serverId={serverId} onSaved={(w) => { notify(t('hook.added', { name: w.name || String(w.id) })); setAdding(false); hooks.reload(); }} />
          <button type="button" onClick={() => setAdding(false)}>{t('f.cancel')}</button>
        </section>
      )}
    </section>
  );
}
