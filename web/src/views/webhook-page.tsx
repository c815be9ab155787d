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
import { WebhookForm } from './webhook-form';

function TestSend({ id, onDone }: { id: number; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const run = async () => {
    setBusy(true);
    setResult(null);
    try {
      const r = await api<{ httpStatus: number; durationMs: number }>('POST', `/api/webhooks/${id}/test`);
      setResult({ ok: true, text: `Delivered: the receiver answered ${r.httpStatus} in ${r.durationMs} ms.` });
    } catch (err) {
      setResult({ ok: false, text: describe(err) });
    } finally {
      setBusy(false);
      onDone();
    }
  };
  return (
    <div class="test-send">
      <button type="button" onClick={run} disabled={busy}>{busy ? 'Sending…' : 'Send a test event'}</button>
      <p role="status" class={result ? (result.ok ? 'good' : 'bad') : ''}>{result?.text ?? ''}</p>
    </div>
  );
}

export function WebhookPage({ id }: { id: string }) {
  const hook = useLoad(() => get<Webhook>(`/api/webhooks/${id}`), [id]);
  const log = useLoad(() => get<Delivery[]>(`/api/webhooks/${id}/deliveries`), [id]);
  const w = hook.data;
  const name = w ? w.name || `webhook ${w.id}` : `webhook ${id}`;
  useTitle(name);
  if (!w) return <><h1>{name}</h1><LoadError error={hook.error} code={hook.code} reload={hook.reload} /></>;
  const remove = async () => {
    await api('DELETE', `/api/webhooks/${w.id}`);
    notify(`Webhook ${name} deleted`);
    navigate(href('servers', w.serverID, 'webhooks'));
  };
  return (
    <>
      <p class="crumbs"><a href={href()}>Overview</a> / <ServerCrumb id={w.serverID} to={href('servers', w.serverID, 'webhooks')} /> / {name}</p>
      <div class="bar"><h1>{name}</h1>{can('admin') && <ConfirmDelete what={`webhook ${name}`} onDelete={remove} />}</div>
      {can('admin') && <TestSend id={w.id} onDone={log.reload} />}
      <section aria-labelledby="log-h">
        <h2 id="log-h">Deliveries</h2>
        <LoadError error={log.error} code={log.code} reload={log.reload} />
        {log.data && log.data.length === 0 && <p>Nothing sent yet.</p>}
        {log.data && log.data.length > 0 && (
          <div class="table-wrap stack">
            <table>
              <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">HTTP</th><th scope="col">Error</th></tr></thead>
              <tbody>
                {log.data.map((d) => (
                  <tr key={d.id}>
                    <Cell label="When">{formatDate(d.timestamp)}</Cell><Cell label="Event">{d.event}</Cell><Cell label="Attempt">{d.attempt}</Cell>
                    <Cell label="Outcome" class={d.outcome === 'delivered' ? 'good' : 'bad'}>{d.outcome}</Cell><Cell label="HTTP">{d.httpStatus ?? '—'}</Cell><Cell label="Error">{d.error || '—'}</Cell>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="hook-edit-h">
        <h2 id="hook-edit-h">Settings</h2>
        {can('admin') && <WebhookForm serverId={w.serverID} hook={w} key={w.updatedAt} onSaved={() => { notify('Webhook saved'); hook.reload(); }} />}
      </section>
    </>
  );
}
