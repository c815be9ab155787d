// A server: its settings, edit and delete, and its sections: peers, webhooks, registration
// tokens. The peers come first: GET /api/servers/{id} carries every peer of the server, so
// at ten thousand peers it is asked for only once the first page of peers is shown.
import { can } from '../role';
import { useState } from 'preact/hooks';
import { api, get } from '../api';
import { ConfirmDelete } from '../confirm';
import { formatDate } from '../format';
import { repairWords } from './kernel-state';
import { useLive } from '../live';
import { LoadError, useLoad, useThrottled, useTitle } from '../load';
import { serverNames, useServerName } from '../names';
import { notify } from '../notice';
import { href, navigate } from '../router';
import { t } from '../i18n';
import type { Server } from '../types';
import { KernelState } from './kernel-state';
import { PeersTable } from './peers-table';
import { WebhookList } from './webhook-list';
import { RegTokens } from './reg-tokens';

type Tab = 'peers' | 'webhooks' | 'tokens';

export function ServerPage({ id, tab }: { id: string; tab: Tab }) {
  const [peersShown, setPeersShown] = useState(tab !== 'peers');
  const server = useLoad(async () => {
    if (!peersShown) return undefined;
    const { peers: _peers, ...s } = await get<Server>(`/api/servers/${id}?peers=none`);
    serverNames.set(s.id, s.name);
    return s;
  }, [id, peersShown]);
  const reload = useThrottled(server.reload, 500);
  useLive((e) => { if ((e.event === 'serverChanged' || e.event === 'kernelDrift') && (String(e.serverID) === id || e.serverID === 0)) reload(); }, [id, reload]);
  const s = server.data;
  const known = useServerName(Number(id));
  const name = s?.name ?? known;
  useTitle(name);
  const tabLink = (to: Tab, text: string) => (
    <li><a href={to === 'peers' ? href('servers', id) : href('servers', id, to)} aria-current={to === tab ? 'page' : undefined}>{text}</a></li>
  );
  const remove = async () => {
    await api('DELETE', `/api/servers/${id}`);
    notify(t('server.deleted', { name }));
    navigate(href());
  };
  return (
    <>
      <p class="crumbs"><a href={href()}>{t('nav.overview')}</a> / {name}</p>
      <div class="bar">
        <h1>{name}</h1>
        {can('admin') && <div class="buttons">
          <a class="button" href={href('servers', id, 'edit')}>{t('serverf.edit')}</a>
          <ConfirmDelete what={t('server.deleteWhat', { name })} onDelete={remove} />
        </div>}
      </div>
      <LoadError error={server.error} code={server.code} reload={server.reload} />
      {s && (
        <dl class="facts">
          <div><dt>{t('overview.col.endpoint')}</dt><dd><code>{s.endpoint}</code></dd></div>
          <div><dt>{t('overview.col.mode')}</dt><dd>{s.mode}</dd></div>
          <div><dt>{t('serverf.interface')}</dt><dd><code>{s.interface}</code></dd></div>
          <div><dt>{t('serverf.address')}</dt><dd><code>{s.address}</code></dd></div>
          <div><dt>{t('serverf.address6')}</dt><dd>{s.address6 ? <code>{s.address6}</code> : t('server.ipv4Only')}</dd></div>
          <div><dt>{t('serverf.port')}</dt><dd>{s.listenPort}</dd></div>
          <div><dt>{t('overview.col.kernel')}</dt><dd><KernelState server={s} /></dd></div>
          {s.lastKernelRepair && <div><dt>{t('server.repair')}</dt><dd class="kernel-repair">{formatDate(s.lastKernelRepair.at)}: {repairWords(s.lastKernelRepair.kinds)}</dd></div>}
          <div class="wide"><dt>{t('peerf.publicKey')}</dt><dd><code class="key">{s.publicKey}</code></dd></div>
          <div><dt>{t('f.created')}</dt><dd>{formatDate(s.createdAt)}</dd></div>
        </dl>
      )}
      <nav aria-label={t('server.sections')} class="tabs">
        <ul>{tabLink('peers', t('peers.title'))}{tabLink('webhooks', t('hooks.title'))}{can('operator') && tabLink('tokens', t('tokens.title'))}</ul>
      </nav>
      {tab === 'peers' && <PeersTable serverId={id} onShown={() => setPeersShown(true)} />}
      {tab === 'webhooks' && <WebhookList serverId={id} />}
      {tab === 'tokens' && can('operator') && <RegTokens serverId={id} />}
    </>
  );
}
