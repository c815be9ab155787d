// One device: what it last reported, suspend or reinstate, key rotation (picked up at its
// next heartbeat), its port forwards, and removal (with its peer).
import { can } from '../role';
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { ConfirmDelete } from '../confirm';
import { formatDate } from '../format';
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
  useTitle(d ? `Device ${d.uuidPrefix}` : 'Device');
  if (!d) return <><h1>Device</h1><LoadError error={device.error} code={device.code} reload={device.reload} /></>;
  const suspend = async (value: boolean) => {
    await api('PUT', `/api/devices/${d.id}`, { suspended: value });
    notify(value ? 'Device suspended' : 'Device reinstated');
    device.reload();
  };
  const rotate = async () => {
    await api('POST', `/api/devices/${d.id}/rotate`);
    notify('New keys made: the device takes them at its next heartbeat');
    device.reload();
  };
  const remove = async () => {
    await api('DELETE', `/api/devices/${d.id}`);
    notify('Device removed');
    navigate(href('devices'));
  };
  return (
    <>
      <p class="crumbs"><a href={href('devices')}>Devices</a> / <code>{d.uuidPrefix}</code></p>
      <div class="bar"><h1>Device <code>{d.uuidPrefix}</code></h1>{/* removing a device removes its peer: admins only */}{can('admin') && <ConfirmDelete what="this device and its peer" label="Remove" onDelete={remove} />}</div>
      <dl class="facts">
        {d.uuid && <div class="wide"><dt>Device id (a secret: it gets the device's keys)</dt><dd><code>{d.uuid}</code></dd></div>}
        <div><dt>Server</dt><dd><ServerCrumb id={d.serverID} to={href('servers', d.serverID)} /></dd></div>
        <div><dt>Peer</dt><dd><a href={href('peers', d.peerID)}>{d.ip}</a></dd></div>
        <div><dt>Status</dt><dd>{d.suspended ? 'suspended' : d.status || '—'}</dd></div>
        <div><dt>Agent state</dt><dd>{d.state || '—'}</dd></div>
        <div><dt>Tunnel</dt><dd>{d.tunnelUp === null ? '—' : d.tunnelUp ? 'up' : 'down'}</dd></div>
        <div><dt>Last heartbeat</dt><dd>{formatDate(d.lastSeenAt)}</dd></div>
        <div><dt>Last handshake</dt><dd>{formatDate(d.lastHandshake)}</dd></div>
        <div><dt>Hardware id</dt><dd><code>{d.hwid}</code></dd></div>
        <div><dt>Enrolled</dt><dd>{formatDate(d.provisionedAt)}</dd></div>
      </dl>
      {can('operator') && <div class="buttons">
        {d.suspended ? <Action text="Reinstate" run={() => suspend(false)} /> : <Action text="Suspend" run={() => suspend(true)} />}
        <Action text="Rotate keys" run={rotate} />
      </div>}
      <Forwards deviceId={d.id} />
    </>
  );
}
