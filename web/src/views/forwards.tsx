// A device's port forwards: from a port of the router to a port of the device, over its tunnel.
import { can } from '../role';
import { api, get } from '../api';
import { FormError, Select, TextField, toInt, useForm } from '../form';
import { LoadError, useLoad } from '../load';
import { notify } from '../notice';
import type { Forward } from '../types';
import { t } from '../i18n';

export function Forwards({ deviceId }: { deviceId: number }) {
  const list = useLoad(() => get<Forward[]>(`/api/devices/${deviceId}/forwards`), [deviceId]);
  const form = useForm('fwd', { protocol: 'tcp', listenPort: '', targetPort: '' });
  const submit = form.submit(async () => {
    await api('POST', `/api/devices/${deviceId}/forwards`, { protocol: form.values.protocol, listenPort: toInt(form.values.listenPort), targetPort: toInt(form.values.targetPort) });
    notify(t('fwd.added'));
    form.reset({ protocol: form.values.protocol, listenPort: '', targetPort: '' });
    list.reload();
  });
  const remove = async (f: Forward) => {
    await api('DELETE', `/api/forwards/${f.id}`).then(() => { notify(t('fwd.removed')); list.reload(); }, () => list.reload());
  };
  return (
    <section aria-labelledby="fwd-h">
      <h2 id="fwd-h">{t('fwd.title')}</h2>
      <LoadError error={list.error} code={list.code} reload={list.reload} />
      {list.data && list.data.length === 0 && <p>{t('access.none')}</p>}
      {list.data && list.data.length > 0 && (
        <ul class="chips">
          {list.data.map((f) => (
            <li key={f.id}>{t('fwd.one', { protocol: f.protocol, from: String(f.listenPort), to: String(f.targetPort) })}{' '}
              {can('operator') && <button type="button" class="quiet" onClick={() => remove(f)} aria-label={t('fwd.remove', { protocol: f.protocol, from: String(f.listenPort), to: String(f.targetPort) })}>{t('access.remove')}</button>}
            </li>
          ))}
        </ul>
      )}
      {can('operator') && <form onSubmit={submit} noValidate class="cols">
        <Select form={form} name="protocol" label={t('fwd.protocol')} options={[['tcp', 'TCP'], ['udp', 'UDP']]} />
        <TextField form={form} name="listenPort" label={t('fwd.routerPort')} inputMode="numeric" required />
        <TextField form={form} name="targetPort" label={t('fwd.devicePort')} inputMode="numeric" required />
        <FormError form={form} />
        <div class="buttons"><button type="submit" disabled={form.busy}>{t('fwd.add')}</button></div>
      </form>}
    </section>
  );
}
