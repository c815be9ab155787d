// The overview: totals, then each server with its peers online / total and its traffic.
// Totals follow every event; the server list follows server changes.
import { can } from '../role';
import { get } from '../api';
import { formatBytes, plural } from '../format';
import { useLive } from '../live';
import { LoadError, useLoad, useThrottled, useTitle } from '../load';
import { serverNames } from '../names';
import { href } from '../router';
import type { Server, ServerStats, Stats } from '../types';
import { KernelState } from './kernel-state';
import { Cell } from '../cell';

export function Overview() {
  useTitle('Overview');
  const servers = useLoad(async () => {
    const list = await get<Server[]>('/api/servers?peers=none');
    for (const s of list) serverNames.set(s.id, s.name);
    return list.map(({ peers: _peers, ...rest }) => rest);
  }, []);
  const stats = useLoad(async () => {
    const [total, perServer] = await Promise.all([
      get<Stats>('/api/stats'),
      Promise.all((servers.data ?? []).map((s) => get<ServerStats>(`/api/servers/${s.id}/stats`).catch(() => null))),
    ]);
    return { total, perServer: new Map(perServer.filter((s): s is ServerStats => s !== null).map((s) => [s.serverID, s])) };
  }, [servers.data]);
  const reloadStats = useThrottled(stats.reload, 1000);
  const reloadServers = useThrottled(servers.reload, 500);
  useLive((e) => {
    if (e.event === 'serverChanged') reloadServers();
    reloadStats();
  }, [reloadStats, reloadServers]);

  const t = stats.data?.total;
  return (
    <>
      <h1>Overview</h1>
      <LoadError error={servers.error || stats.error} reload={servers.reload} />
      <section aria-labelledby="totals-h">
        <h2 id="totals-h" class="visually-hidden">Totals</h2>
        <dl class="cards">
          <div><dt>Servers</dt><dd>{t ? t.totalServers.toLocaleString() : '…'}</dd></div>
          <div><dt>Peers</dt><dd>{t ? t.totalPeers.toLocaleString() : '…'}</dd></div>
          <div><dt>Enabled</dt><dd>{t ? t.enabledPeers.toLocaleString() : '…'}</dd></div>
          <div><dt>Disabled</dt><dd>{t ? t.disabledPeers.toLocaleString() : '…'}</dd></div>
          <div><dt>Devices</dt><dd>{t ? t.totalDevices.toLocaleString() : '…'}</dd></div>
          <div><dt>Traffic this month</dt><dd>{t ? formatBytes(t.totalDataUsageBytes) : '…'}</dd></div>
        </dl>
      </section>
      <section aria-labelledby="servers-h">
        <div class="bar">
          <h2 id="servers-h">Servers</h2>
          {can('admin') && <a class="button primary" href={href('servers', 'new')}>Add a server</a>}
        </div>
        {servers.data && servers.data.length === 0 && <p>No server yet. Add one to give peers a tunnel.</p>}
        {servers.data && servers.data.length > 0 && (
          <div class="table-wrap stack">
            <table>
              <thead>
                <tr><th scope="col">Name</th><th scope="col">Mode</th><th scope="col">Endpoint</th><th scope="col">Peers online / total</th><th scope="col">Traffic this month</th><th scope="col">Kernel</th></tr>
              </thead>
              <tbody>
                {servers.data.map((s) => {
                  const st = stats.data?.perServer.get(s.id);
                  return (
                    <tr key={s.id}>
                      <th scope="row" class="name"><a href={href('servers', s.id)} title={s.name}>{s.name}</a></th>
                      <Cell label="Mode">{s.mode}</Cell>
                      <Cell label="Endpoint"><code>{s.endpoint}</code></Cell>
                      <Cell label="Peers online">{st ? `${st.onlinePeers.toLocaleString()} / ${plural(st.peerCount, 'peer')}` : '…'}</Cell>
                      <Cell label="Traffic">{st ? formatBytes(st.dataUsageBytes) : '…'}</Cell>
                      <Cell label="Kernel" class="kernel"><KernelState server={s} /></Cell>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
