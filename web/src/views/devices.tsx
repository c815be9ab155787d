// Devices (agents that enrolled with a registration token): their status and last
// heartbeat; each links to its page for suspend, forwards and key rotation. A device is
// named by the first 8 characters of its device_id: the whole id is a credential, which
// the API shows to admins alone (on the device's page).
import { get } from '../api';
import { formatDate } from '../format';
import { useLive } from '../live';
import { LoadError, useLoad, useThrottled, useTitle } from '../load';
import { serverLabel } from '../names';
import { href } from '../router';
import type { Device } from '../types';
import { Cell } from '../cell';
import { t } from '../i18n';

export function Devices() {
  useTitle(t('devices.title'));
  const devices = useLoad(() => get<Device[]>('/api/devices'), []);
  const reload = useThrottled(devices.reload, 1000);
  useLive((e) => { if (e.event.startsWith('device') || e.event === 'peerDeleted') reload(); }, [reload]);
  return (
    <>
      <h1>{t('devices.title')}</h1>
      <p>{t('devices.about', { setting: 'heartbeat_interval_s' })}</p>
      <LoadError error={devices.error} code={devices.code} reload={devices.reload} />
      {devices.data && devices.data.length === 0 && <p>{t('devices.none')}</p>}
      {devices.data && devices.data.length > 0 && (
        <div class="table-wrap stack">
          <table>
            <thead><tr><th scope="col">{t('devices.col.device')}</th><th scope="col">{t('devices.col.server')}</th><th scope="col">{t('devices.col.address')}</th><th scope="col">{t('devices.col.status')}</th><th scope="col">{t('devices.col.tunnel')}</th><th scope="col">{t('devices.col.heartbeat')}</th></tr></thead>
            <tbody>
              {devices.data.map((d) => (
                <tr key={d.id}>
                  <th scope="row"><a href={href('devices', d.id)}><code>{d.uuidPrefix}</code></a></th>
                  <Cell label={t('devices.col.server')}>{serverLabel(d.serverID)}</Cell>
                  <Cell label={t('devices.col.address')}><code>{d.ip}</code></Cell>
                  <Cell label={t('devices.col.status')}>{d.suspended ? <span class="pill off">{t('devices.suspended')}</span> : d.status || d.state || '—'}</Cell>
                  <Cell label={t('devices.col.tunnel')}>{d.tunnelUp === null ? '—' : d.tunnelUp ? t('devices.up') : t('devices.down')}</Cell>
                  <Cell label={t('devices.col.heartbeat')}>{formatDate(d.lastSeenAt)}{d.heartbeatIntervalS !== null && <small> · {t('devices.every', { seconds: d.heartbeatIntervalS })}</small>}</Cell>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
