// One device: what it last reported, suspend or reinstate, key rotation (picked up at its
// next heartbeat), its port forwards, and removal (with its peer).
import { can } from '../role';
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { ConfirmDelete } from '../confirm';
import { formatDate } from '../format';
import { t } from '../i18n';
import { useLive } from '../live';
import { LoadError, useLoad, useThrottled, useTitle } from '../load';
import { ServerCrumb } from './server-crumb';
import { notify } from '../notice';
import { href, navigate } from '../router';
import type { Device } from '../types';
import { Forwards } from './forwards';

function Action({ text, run }: { text: string; run: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const go = async () => {
    setBusy(true);
    setError('');
    try { await run(); } catch (err) { setError(describe(err)); } finally { setBusy(false); }
  };
  return <><button type="button" disabled={busy} onClick={go}>{text}</button>{error && <span class="field-error" role="alert">{error}</span>}</>;
}

export function DevicePage({ id }: { id: string }) {
  const device = useLoad(() => get<Device>(`/api/devices/${id}`), [id]);
  const reload = useThrottled(device.reload, 500);
  useLive((e) => { if (e.event.startsWith('device') || e.event === 'peerUpdated') reload(); }, [reload]);
  const d = device.data;
  useTitle(d ? t('device.title', { id: d.uuidPrefix }) : t('device.one'));
  if (!d) return <><h1>{t('device.one')}</h1><LoadError error={device.error} code={device.code} reload={device.reload} /></>;
  const suspend = async (value: boolean) => {
    await api('PUT', `/api/devices/${d.id}`, { suspended: value });
    notify(value ? t('device.suspended') : t('device.reinstated'));
    device.reload();
  };
  const rotate = async () => {
    await api('POST', `/api/devices/${d.id}/rotate`);
    notify(t('device.rotated'));
    device.reload();
  };
  const remove = async () => {
    await api('DELETE', `/api/devices/${d.id}`);
    notify(t('device.removed'));
    navigate(href('devices'));
  };
  return (
    <>
      <p class="crumbs"><a href={href('devices')}>{t('nav.devices')}</a> / <code>{d.uuidPrefix}</code></p>
      <div class="bar"><h1>{t('device.one')} <code>{d.uuidPrefix}</code></h1>{/* removing a device removes its peer: admins only */}{can('admin') && <ConfirmDelete what={t('device.deleteWhat')} label={t('access.remove')} onDelete={remove} />}</div>
      <dl class="facts">
        {d.uuid && <div class="wide"><dt>{t('device.uuid')}</dt><dd><code>{d.uuid}</code></dd></div>}
        <div><dt>{t('devices.col.server')}</dt><dd><ServerCrumb id={d.serverID} to={href('servers', d.serverID)} /></dd></div>
        <div><dt>{t('device.peer')}</dt><dd><a href={href('peers', d.peerID)}>{d.ip}</a></dd></div>
        <div><dt>{t('devices.col.status')}</dt><dd>{d.suspended ? t('devices.suspended') : d.status || '—'}</dd></div>
        <div><dt>{t('device.agent')}</dt><dd>{d.state || '—'}</dd></div>
        <div><dt>{t('devices.col.tunnel')}</dt><dd>{d.tunnelUp === null ? '—' : d.tunnelUp ? t('devices.up') : t('devices.down')}</dd></div>
        <div><dt>{t('devices.col.heartbeat')}</dt><dd>{formatDate(d.lastSeenAt)}</dd></div>
        <div><dt>{t('device.handshake')}</dt><dd>{formatDate(d.lastHandshake)}</dd></div>
        <div><dt>{t('device.hwid')}</dt><dd><code>{d.hwid}</code></dd></div>
        <div><dt>{t('device.enrolled')}</dt><dd>{formatDate(d.provisionedAt)}</dd></div>
      </dl>
      {can('operator') && <div class="buttons">
        {d.suspended ? <Action text={t('device.reinstate')} run={() => suspend(false)} /> : <Action text={t('device.suspend')} run={() => suspend(true)} />}
        <Action text={t('device.rotate')} run={rotate} />
      </div>}
      <Forwards deviceId={d.id} />
    </>
  );
}
