// A server's webhooks, and a form to add one.
import { Cell } from '../cell';
import { can } from '../role';
import { useState } from 'preact/hooks';
import { get } from '../api';
import { LoadError, useLoad } from '../load';
import { notify } from '../notice';
import { href } from '../router';
import type { Webhook } from '../types';
import { WebhookForm } from './webhook-form';

export function WebhookList({ serverId }: { serverId: string }) {
  const hooks = useLoad(() => get<Webhook[]>(`/api/servers/${serverId}/webhooks`), [serverId]);
  const [adding, setAdding] = useState(false);
  return (
    <section aria-labelledby="hooks-h">
      <div class="bar">
        <h2 id="hooks-h">Webhooks</h2>
        {!adding && can('admin') && <button type="button" class="primary" onClick={() => setAdding(true)}>Add a webhook</button>}
      </div>
      <LoadError error={hooks.error} code={hooks.code} reload={hooks.reload} />
      {hooks.data && hooks.data.length === 0 && <p>No webhook: nothing is told of this server's events.</p>}
      {hooks.data && hooks.data.length > 0 && (
        <div class="table-wrap stack">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">URL</th><th scope="col">State</th><th scope="col">Events</th></tr></thead>
            <tbody>
              {hooks.data.map((w) => (
                <tr key={w.id}>
                  <th scope="row"><a href={href('webhooks', w.id)}>{w.name || `webhook ${w.id}`}</a></th>
                  <Cell label="URL"><code class="key">{w.url}</code></Cell>
                  <Cell label="State">{w.isEnabled ? 'enabled' : 'disabled'}{w.isGlobal ? ', every server' : ''}</Cell>
                  <Cell label="Events">{w.subscribedActions.length === 0 ? 'all' : w.subscribedActions.join(', ')}</Cell>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {adding && (
        <section aria-labelledby="newhook-h" class="panel">
          <h3 id="newhook-h">New webhook</h3>
          <WebhookForm serverId={serverId} onSaved={(w) => { notify(`Webhook ${w.name || w.id} added`); setAdding(false); hooks.reload(); }} />
          <button type="button" onClick={() => setAdding(false)}>Cancel</button>
        </section>
      )}
    </section>
  );
}
