// One webhook: its settings, a test send (the receiver's answer, or why it failed), its
// delivery log, and delete.
import { Cell } from '../cell';
import { can } from '../role';
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { ConfirmDelete } from '../confirm';
import { formatDate } from '../format';
import { LoadError, useLoad, useTitle } from '../load';
import { ServerCrumb } from './server-crumb';
import { notify } from '../notice';
import { href, navigate } from '../router';
import type { Delivery, Webhook } from '../types';
import { t } from '../i18n';
import { WebhookForm } from './webhook-form';

const outcomeWords = (o: string): string =>
  ({ delivered: t('hook.oDelivered'), retrying: t('hook.oRetrying'), failed: t('hook.oFailed'), test: t('hook.oTest') } as Record<string, string>)[o] ?? o;

function TestSend({ id, onDone }: { id: number; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const run = async () => {
    setBusy(true);
    setResult(null);
    try {
      const r = await api<{ httpStatus: number; durationMs: number }>('POST', `/api/webhooks/${id}/test`);
      setResult({ ok: true, text: t('hook.delivered', { status: String(r.httpStatus), ms: r.durationMs }) });
    } catch (err) {
      setResult({ ok: false, text: describe(err) });
    } finally {
      setBusy(false);
      onDone();
    }
  };
  return (
    <div class="test-send">
      <button type="button" onClick={run} disabled={busy}>{busy ? t('mail.sending') : t('hook.test')}</button>
      <p role="status" class={result ? (result.ok ? 'good' : 'bad') : ''}>{result?.text ?? ''}</p>
    </div>
  );
}

export function WebhookPage({ id }: { id: string }) {
  const hook = useLoad(() => get<Webhook>(`/api/webhooks/${id}`), [id]);
  const log = useLoad(() => get<Delivery[]>(`/api/webhooks/${id}/deliveries`), [id]);
  const w = hook.data;
  const name = w ? w.name || t('hook.unnamed', { id: w.id }) : t('hook.unnamed', { id });
  useTitle(name);
  if (!w) return <><h1>{name}</h1><LoadError error={hook.error} code={hook.code} reload={hook.reload} /></>;
  const remove = async () => {
    await api('DELETE', `/api/webhooks/${w.id}`);
    notify(t('hook.deleted', { name }));
    navigate(href('servers', w.serverID, 'webhooks'));
  };
  return (
    <>
      <p class="crumbs"><a href={href()}>{t('nav.overview')}</a> / <ServerCrumb id={w.serverID} to={href('servers', w.serverID, 'webhooks')} /> / {name}</p>
      <div class="bar"><h1>{name}</h1>{can('admin') && <ConfirmDelete what={t('hook.deleteWhat', { name })} onDelete={remove} />}</div>
      {can('admin') && <TestSend id={w.id} onDone={log.reload} />}
      <section aria-labelledby="log-h">
        <h2 id="log-h">{t('hook.deliveries')}</h2>
        <LoadError error={log.error} code={log.code} reload={log.reload} />
        {log.data && log.data.length === 0 && <p>{t('hook.nothingSent')}</p>}
        {log.data && log.data.length > 0 && (
          <div class="table-wrap stack">
            <table>
              <thead><tr><th scope="col">{t('hook.when')}</th><th scope="col">{t('hook.event')}</th><th scope="col">{t('hook.attempt')}</th><th scope="col">{t('hook.outcome')}</th><th scope="col">HTTP</th><th scope="col">{t('hook.error')}</th></tr></thead>
              <tbody>
                {log.data.map((d) => (
                  <tr key={d.id}>
                    <Cell label={t('hook.when')}>{formatDate(d.timestamp)}</Cell><Cell label={t('hook.event')}>{d.event}</Cell><Cell label={t('hook.attempt')}>{d.attempt}</Cell>
                    <Cell label={t('hook.outcome')} class={d.outcome === 'delivered' ? 'good' : 'bad'}>{outcomeWords(d.outcome)}</Cell><Cell label="HTTP">{d.httpStatus ?? '—'}</Cell><Cell label={t('hook.error')}>{d.error || '—'}</Cell>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="hook-edit-h">
        <h2 id="hook-edit-h">{t('peer.sec.settings')}</h2>
        {can('admin') && <WebhookForm serverId={w.serverID} hook={w} key={w.updatedAt} onSaved={() => { notify(t('hook.saved')); hook.reload(); }} />}
      </section>
    </>
  );
}
