// A peer: an overview first (its state with the reason it is off, the one on/off switch, its
// use of its data limit, its QR code and .conf), then its settings, access, networks, schedule,
// traffic and sharing, each reached from the section bar under the heading without
// scrolling past the others. It follows the live stream: a change made elsewhere shows at once.
import { PeerTraffic } from './peer-traffic';
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { ConfirmDelete } from '../confirm';
import { describeSchedule } from '../schedule-text';
import { PeerSchedule } from './peer-schedule';
import { formatAgo, formatBytes, formatDate, formatGiB, limitOf, reasonWords } from '../format';
import { isOnline, usage, useLive } from '../live';
import { LoadError, useLoad, useThrottled, useTitle } from '../load';
import { ServerCrumb } from './server-crumb';
import { notify } from '../notice';
import { href, navigate } from '../router';
import type { Device, Peer } from '../types';
import { SectionNav, StateBadge, UsageBar, usageWords } from './peer-state';
import { t } from '../i18n';
import { PeerAccess } from './peer-access';
import { PeerReach } from './peer-reach';
import { PeerConf } from './peer-conf';
import { PeerEdit } from './peer-edit';
import { PeerMail } from './peer-mail';
import { PeerShare } from './peer-share';
import { can } from '../role';


function Switch({ peer, field, label, onSaved }: { peer: Peer; field: 'enabled' | 'allowInternet'; label: string; onSaved: (p: Peer) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const id = `switch-${field}`;
  const change = async (value: boolean) => {
    setBusy(true);
    setError('');
    try {
      const saved = await api<Peer>('PUT', `/api/peers/${peer.id}`, { [field]: value });
      onSaved(saved);
      notify(field === 'enabled' ? (value ? t('peer.switchedOn') : t('peer.switchedOff')) : (value ? t('peer.internetOn') : t('peer.internetOff')));
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  // The switch shows the peer's real state. Off for a reason the switch cannot lift (data
  // limit, schedule, suspension), it says so beside it and cannot be turned on: only turned
  // off by the admin too, which keeps it off when that reason ends.
  const others = field === 'enabled' ? peer.disabledReasons.filter((r) => r !== 'admin') : [];
  const checked = field === 'enabled' ? peer.enabled : peer.allowInternet;
  const stuck = others.length > 0;
  const described = [stuck ? `${id}-why` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field check">
      <input type="checkbox" role="switch" id={id} checked={checked} disabled={busy || !can('operator') || (stuck && !peer.disabledReasons.includes('admin'))}
        aria-describedby={described} onChange={(e) => change(e.currentTarget.checked)} />
      <label for={id}>{label}</label>
      {stuck && <p id={`${id}-why`} class="reason">{t('peer.offWhy', { why: others.map((r) => reasonWords(r)).join(', ') })}{' '}
        {peer.disabledReasons.includes('admin') ? t('peer.alsoOff') : t('peer.comesBack')}</p>}
      {error && <p id={`${id}-error`} class="field-error">{error}</p>}
    </div>
  );
}

export function PeerPage({ id }: { id: string }) {
  const [gone, setGone] = useState(false);
  const loaded = useLoad(() => get<Peer>(`/api/peers/${id}`), [id]);
  const [override, setOverride] = useState<Peer | null>(null);
  // A device's own peer: its keys are the device's, so no QR code, link or mail of them here.
  const device = useLoad(() => (can('operator') ? get<Device[]>('/api/devices').then((list) => list.find((d) => d.peerID === Number(id)) ?? null) : Promise.resolve(null)), [id]);
  const peer = override && loaded.data && override.updatedAt >= loaded.data.updatedAt ? override : loaded.data;
  const [, setTick] = useState(0);
  const reload = useThrottled(loaded.reload, 300);
  useLive((e) => {
    if (e.event === 'usage') return setTick((n) => n + 1);
    if (Number(e.data?.peer?.id) !== Number(id)) return;
    if (e.event === 'peerDeleted' || e.event === 'peerExpired') setGone(true);
    else reload();
  }, [id, reload]);
  const name = peer ? peer.name || t('peer.unnamed', { id: peer.ip }) : t('peer.unnamed', { id });
  useTitle(name);
  if (gone) return <><h1>{name}</h1><p role="alert">{t('peer.gone')}</p><p><a href={href()}>{t('notFound.link')}</a></p></>;
  if (!peer) return <><h1>{name}</h1><LoadError error={loaded.error} code={loaded.code} reload={loaded.reload} />{!loaded.error && <p class="loading">{t('load.loading')}</p>}</>;

  const live = usage.get(peer.id);
  const used = live?.currentDataUsageBytes ?? peer.currentDataUsageBytes;
  const online = isOnline(live?.latestHandshake);
  // The live usage message may be newer than the peer read: its switch state wins then.
  const enabled = live ? live.enabled : peer.enabled;
  const remove = async () => {
    await api('DELETE', `/api/peers/${peer.id}`);
    notify(t('peer.deleted', { name }));
    navigate(href('servers', peer.serverID));
  };
  const sections: [string, string][] = [['peer-overview', t('peer.sec.overview')], ['edit-h', t('peer.sec.settings')], ['access-h', t('peer.sec.access')],
    ['reach-h', t('peer.sec.reach')], ['schedule-h', t('peer.sec.schedule')], ['traffic-h', t('peer.sec.traffic')]];
  if (can('operator') && !device.data) sections.push([peer.hasPrivateKey ? 'share-h' : 'mail-h', t('peer.sec.sharing')]);
  const shown = can('operator') ? sections : sections.filter(([id]) => id === 'peer-overview' || id === 'traffic-h');
  return (
    <>
      <p class="crumbs"><a href={href()}>{t('nav.overview')}</a> / <ServerCrumb id={peer.serverID} to={href('servers', peer.serverID)} /> / {name}</p>
      <div class="bar">
        <h1>{name}</h1>
        {can('admin') && <ConfirmDelete what={t('peer.deleteWhat', { name })} onDelete={remove} />}
      </div>
      <SectionNav sections={shown} />
      <div class="peer-grid" id="peer-overview" tabIndex={-1}>
        <section aria-labelledby="state-h">
          <h2 id="state-h">{t('peer.state')}</h2>
          <p class="state">
            <StateBadge enabled={enabled} online={online} reasons={peer.disabledReasons} />
            {' '}{t('peer.lastHandshake', { when: formatAgo(live?.latestHandshake ?? 0) })}
          </p>
          <Switch peer={{ ...peer, enabled }} field="enabled" label={t('peer.switch')} onSaved={setOverride} />
          <p class="usage-line">{t('peer.usedMonth', { used: limitOf(peer) > 0
            ? t('peer.usedOf', { used: formatBytes(used), limit: formatGiB(limitOf(peer)), percent: usageWords(used, limitOf(peer)) })
            : t('peer.noLimit', { used: formatBytes(used) }) })}</p>
          {limitOf(peer) > 0 && <UsageBar used={used} limitGiB={limitOf(peer)} />}
          <dl class="facts">
            <div><dt>{t('peers.col.address')}</dt><dd><code>{peer.ip}</code></dd></div>
            <div><dt>{t('peerf.ip6')}</dt><dd>{peer.ip6 ? <code>{peer.ip6}</code> : t('peer.noIp6')}</dd></div>
            <div><dt>{t('peer.internet')}</dt><dd>{peer.allowInternet ? t('peer.internetYes') : t('peer.internetNo')}</dd></div>
            <div><dt>{t('schedule.title')}</dt><dd>{describeSchedule(peer.schedule)}</dd></div>
            <div><dt>{t('peers.col.expires')}</dt><dd>{peer.expiresAt ? t('peer.expiresAt', { when: formatDate(peer.expiresAt) }) : t('peers.never')}</dd></div>
            <div class="wide"><dt>{t('peerf.publicKey')}</dt><dd><code class="key">{peer.publicKey}</code></dd></div>
          </dl>
        </section>
        <section aria-labelledby="conf-h">
          <h2 id="conf-h">{t('peer.configuration')}</h2>
          {!can('operator') ? <p>{t('peer.viewerConf')}</p>
            : device.data ? <p>{t('peer.deviceTunnel')} <a href={href('devices', device.data.id)}><code>{device.data.uuidPrefix}</code></a>{t('peer.deviceOwn')}</p>
            : <PeerConf peer={peer} name={name} />}
        </section>
      </div>
      {can('operator') && <>
        <PeerEdit peer={peer} onSaved={setOverride} />
        <section aria-labelledby="internet-h">
          <h2 id="internet-h" class="visually-hidden">{t('peer.internet')}</h2>
          <Switch peer={peer} field="allowInternet" label={t('peerf.internet')} onSaved={setOverride} />
        </section>
        <PeerAccess peer={peer} onSaved={setOverride} />
        <PeerReach peer={peer} onSaved={setOverride} />
        <PeerSchedule peer={peer} onSaved={setOverride} />
      </>}
      <PeerTraffic peerId={peer.id} />
      {can('operator') && !device.data && <>
        {peer.hasPrivateKey && <PeerShare peerId={peer.id} />}
        <PeerMail peer={peer} />
      </>}
    </>
  );
}
