// A peer: whether it is online and on, its switches (on/off, internet access), its use of
// its data limit, its QR code and .conf, and below, its settings, who it may reach, mail,
// delete. It follows the live stream: a change made elsewhere shows at once.
import { PeerTraffic } from './peer-traffic';
import { useState } from 'preact/hooks';
import { api, describe, get } from '../api';
import { ConfirmDelete } from '../confirm';
import { describeSchedule } from '../schedule-text';
import { PeerSchedule } from './peer-schedule';
import { formatAgo, formatBytes, formatDate, formatGiB, GIB, REASONS } from '../format';
import { isOnline, usage, useLive } from '../live';
import { LoadError, useLoad, useThrottled, useTitle } from '../load';
import { ServerCrumb } from './server-crumb';
import { notify } from '../notice';
import { href, navigate } from '../router';
import type { Peer } from '../types';
import { PeerAccess } from './peer-access';
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
      notify(`${label}: ${value ? 'on' : 'off'}`);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  // "enabled" is the admin's own switch: other reasons (data limit, suspension) keep the peer off.
  const checked = field === 'enabled' ? !peer.disabledReasons.includes('admin') : peer.allowInternet;
  return (
    <div class="field check">
      <input type="checkbox" role="switch" id={id} checked={checked} disabled={busy || !can('operator')}
        aria-describedby={error ? `${id}-error` : undefined} onChange={(e) => change(e.currentTarget.checked)} />
      <label for={id}>{label}</label>
      {error && <p id={`${id}-error`} class="field-error">{error}</p>}
    </div>
  );
}

export function PeerPage({ id }: { id: string }) {
  const [gone, setGone] = useState(false);
  const loaded = useLoad(() => get<Peer>(`/api/peers/${id}`), [id]);
  const [override, setOverride] = useState<Peer | null>(null);
  const peer = override && loaded.data && override.updatedAt >= loaded.data.updatedAt ? override : loaded.data;
  const [, setTick] = useState(0);
  const reload = useThrottled(loaded.reload, 300);
  useLive((e) => {
    if (e.event === 'usage') return setTick((n) => n + 1);
    if (Number(e.data?.peer?.id) !== Number(id)) return;
    if (e.event === 'peerDeleted' || e.event === 'peerExpired') setGone(true);
    else reload();
  }, [id, reload]);
  const name = peer ? peer.name || `peer ${peer.ip}` : `peer ${id}`;
  useTitle(name);
  if (gone) return <><h1>{name}</h1><p role="alert">This peer was deleted.</p><p><a href={href()}>Go to the overview</a></p></>;
  if (!peer) return <><h1>{name}</h1><LoadError error={loaded.error} reload={loaded.reload} />{!loaded.error && <p class="loading">Loading…</p>}</>;

  const live = usage.get(peer.id);
  const used = live?.currentDataUsageBytes ?? peer.currentDataUsageBytes;
  const online = isOnline(live?.latestHandshake);
  const limit = peer.dataLimitGB * GIB;
  const otherReasons = peer.disabledReasons.filter((r) => r !== 'admin');
  const remove = async () => {
    await api('DELETE', `/api/peers/${peer.id}`);
    notify(`Peer ${name} deleted`);
    navigate(href('servers', peer.serverID));
  };
  return (
    <>
      <p class="crumbs"><a href={href()}>Overview</a> / <ServerCrumb id={peer.serverID} to={href('servers', peer.serverID)} /> / {name}</p>
      <div class="bar">
        <h1>{name}</h1>
        {can('admin') && <ConfirmDelete what={`peer ${name}`} onDelete={remove} />}
      </div>
      <div class="peer-grid">
        <section aria-labelledby="state-h">
          <h2 id="state-h">State</h2>
          <p class="state">
            {peer.enabled ? (online ? <span class="pill on">Online</span> : <span class="pill">Offline</span>) : <span class="pill off">Off</span>}
            {' '}Last handshake: {formatAgo(live?.latestHandshake ?? 0)}
          </p>
          <Switch peer={peer} field="enabled" label="Peer on" onSaved={setOverride} />
          {otherReasons.length > 0 && <p class="hint">Also off because: {otherReasons.map((r) => REASONS[r] ?? r).join(', ')}.</p>}
          <Switch peer={peer} field="allowInternet" label="Internet access through this router" onSaved={setOverride} />
          <dl class="facts">
            <div><dt>Used this month</dt><dd>{formatBytes(used)}{limit > 0 ? ` of ${formatGiB(peer.dataLimitGB)}` : ' (no limit)'}</dd></div>
            <div><dt>Address</dt><dd><code>{peer.ip}</code></dd></div>
            <div><dt>IPv6 address</dt><dd>{peer.ip6 ? <code>{peer.ip6}</code> : 'none (the server is IPv4 only)'}</dd></div>
            <div><dt>Access schedule</dt><dd>{describeSchedule(peer.schedule)}</dd></div>
            <div><dt>Expires</dt><dd>{peer.expiresAt ? `${formatDate(peer.expiresAt)}: then it is deleted with its keys` : 'never'}</dd></div>
            <div class="wide"><dt>Public key</dt><dd><code class="key">{peer.publicKey}</code></dd></div>
          </dl>
          {limit > 0 && <meter min={0} max={limit} value={Math.min(used, limit)} aria-label="Share of the data limit used">{Math.round((used / limit) * 100)}%</meter>}
        </section>
        <section aria-labelledby="conf-h">
          <h2 id="conf-h">Configuration</h2>
          {!can('operator') ? <p>Configurations are for operators and admins: a viewer sees no private keys.</p> : <PeerConf peer={peer} name={name} />}
        </section>
      </div>
      <PeerTraffic peerId={peer.id} />
      {can('operator') && <>
        {peer.hasPrivateKey && <PeerShare peerId={peer.id} />}
        <PeerEdit peer={peer} onSaved={setOverride} />
        <PeerAccess peer={peer} onSaved={setOverride} />
        <PeerSchedule peer={peer} onSaved={setOverride} />
        <PeerMail peer={peer} />
      </>}
    </>
  );
}
