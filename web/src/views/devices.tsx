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

export function Devices() {
  useTitle('Devices');
  const devices = useLoad(() => get<Device[]>('/api/devices'), []);
  const reload = useThrottled(devices.reload, 1000);
  useLive((e) => { if (e.event.startsWith('device') || e.event === 'peerDeleted') reload(); }, [reload]);
  return (
    <>
      <h1>Devices</h1>
      <p>A device enrols with a registration token (made on its server's page, under Registration tokens) and reports every 30 seconds.</p>
      <LoadError error={devices.error} reload={devices.reload} />
      {devices.data && devices.data.length === 0 && <p>No device has enrolled yet.</p>}
      {devices.data && devices.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Device</th><th scope="col">Server</th><th scope="col">Address</th><th scope="col">Status</th><th scope="col">Tunnel</th><th scope="col">Last heartbeat</th></tr></thead>
            <tbody>
              {devices.data.map((d) => (
                <tr key={d.id}>
                  <th scope="row"><a href={href('devices', d.id)}><code>{d.uuidPrefix}</code></a></th>
                  <td>{serverLabel(d.serverID)}</td>
                  <td><code>{d.ip}</code></td>
                  <td>{d.suspended ? <span class="pill off">suspended</span> : d.status || d.state || '—'}</td>
                  <td>{d.tunnelUp === null ? '—' : d.tunnelUp ? 'up' : 'down'}</td>
                  <td>{formatDate(d.lastSeenAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
