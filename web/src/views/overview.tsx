// The overview: totals, then each server with its peers online / total and its traffic.
// Totals follow every event; the server list follows server changes.
import { can } from '../role';
import { get } from '../api';
import { formatBytes } from '../format';
import { useLive } from '../live';
import { LoadError, useLoad, useThrottled, useTitle } from '../load';
import { serverNames } from '../names';
import { href } from '../router';
import type { Server, ServerStats, Stats } from '../types';
import { KernelState } from './kernel-state';
import { Cell } from '../cell';
import { currentLanguage, t as say } from '../i18n';

export function Overview() {
  useTitle(say('overview.title'));
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
      <h1>{say('overview.title')}</h1>
      <LoadError error={servers.error || stats.error} code={servers.code || stats.code} reload={servers.reload} />
      <section aria-labelledby="totals-h">
        <h2 id="totals-h" class="visually-hidden">{say('overview.totals')}</h2>
        <dl class="cards">
          <div><dt>{say('overview.servers')}</dt><dd>{t ? t.totalServers.toLocaleString(currentLanguage()) : '…'}</dd></div>
          <div><dt>{say('overview.peers')}</dt><dd>{t ? t.totalPeers.toLocaleString(currentLanguage()) : '…'}</dd></div>
          <div><dt>{say('overview.enabled')}</dt><dd>{t ? t.enabledPeers.toLocaleString(currentLanguage()) : '…'}</dd></div>
          <div><dt>{say('overview.disabled')}</dt><dd>{t ? t.disabledPeers.toLocaleString(currentLanguage()) : '…'}</dd></div>
          <div><dt>{say('overview.devices')}</dt><dd>{t ? t.totalDevices.toLocaleString(currentLanguage()) : '…'}</dd></div>
          <div><dt>{say('overview.traffic')}</dt><dd>{t ? formatBytes(t.totalDataUsageBytes) : '…'}</dd></div>
        </dl>
      </section>
      <section aria-labelledby="servers-h">
        <div class="bar">
          <h2 id="servers-h">{say('overview.servers')}</h2>
          {can('admin') && <a class="button primary" href={href('servers', 'new')}>{say('overview.addServer')}</a>}
        </div>
        {servers.data && servers.data.length === 0 && <p>{say('overview.noServer')}</p>}
        {servers.data && servers.data.length > 0 && (
          <div class="table-wrap stack">
            <table>
              <thead>
                <tr><th scope="col">{say('overview.col.name')}</th><th scope="col">{say('overview.col.mode')}</th><th scope="col">{say('overview.col.endpoint')}</th><th scope="col">{say('overview.col.online')}</th><th scope="col">{say('overview.col.traffic')}</th><th scope="col">{say('overview.col.kernel')}</th></tr>
              </thead>
              <tbody>
                {servers.data.map((s) => {
                  const st = stats.data?.perServer.get(s.id);
                  return (
                    <tr key={s.id}>
                      <th scope="row" class="name"><a href={href('servers', s.id)} title={s.name}>{s.name}</a></th>
                      <Cell label={say('overview.col.mode')}>{s.mode}</Cell>
                      <Cell label={say('overview.col.endpoint')}><code>{s.endpoint}</code></Cell>
                      <Cell label={say('overview.col.onlineShort')}>{st ? say('overview.online', { online: st.onlinePeers, total: say(st.peerCount === 1 ? 'peers.count.one' : 'peers.count.many', { n: st.peerCount }) }) : '…'}</Cell>
                      <Cell label={say('overview.col.trafficShort')}>{st ? formatBytes(st.dataUsageBytes) : '…'}</Cell>
                      <Cell label={say('overview.col.kernel')} class="kernel"><KernelState server={s} /></Cell>
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
