// A peer's networks and its access to and from the router's networks, as plain sentences
// ("This peer's network 10.9.0.0/24 may reach: the LAN 192.168.1.0/24"), with lanAccess and
// reachableFrom in a small form: "lan", prefixes separated by commas, or empty for none.
import { api } from '../api';
import { problems, reachList } from '../checks';
import { FormError, TextField, useFollowingForm } from '../form';
import { t } from '../i18n';
import { notify } from '../notice';
import type { Peer } from '../types';

type Reach = Peer['lanAccess'];

const reachText = (r: Reach): string => (r === 'lan' ? 'lan' : r.join(', '));
const reachOf = (text: string): Reach => {
  const v = text.trim();
  return v.toLowerCase() === 'lan' ? 'lan' : v.split(',').map((s) => s.trim()).filter((s) => s !== '');
};
const valuesOf = (p: Peer) => ({ lanAccess: reachText(p.lanAccess), reachableFrom: reachText(p.reachableFrom) });

/** What a peer (or one of its networks) may reach of the router's side, in words. */
function reachWords(p: Peer): string {
  const lan = p.lanAccess === 'lan' ? t('reach.allLans') : p.lanAccess.length ? t('reach.theLan', { list: p.lanAccess.join(', ') }) : '';
  const parts = [lan, p.allowInternet ? t('reach.internet') : ''].filter(Boolean);
  return parts.length ? parts.join('; ') : t('reach.nothing');
}

function fromWords(p: Peer): string {
  if (p.reachableFrom === 'lan') return t('reach.fromLan');
  return p.reachableFrom.length ? p.reachableFrom.join(', ') : t('reach.fromNowhere');
}

export function PeerReach({ peer, onSaved }: { peer: Peer; onSaved: (p: Peer) => void }) {
  const { form } = useFollowingForm('reach', valuesOf(peer), peer.updatedAt);
  const submit = form.submit(async () => {
    const saved = await api<Peer>('PUT', `/api/peers/${peer.id}`, { lanAccess: reachOf(form.values.lanAccess), reachableFrom: reachOf(form.values.reachableFrom) });
    onSaved(saved);
    notify(t('reach.saved'));
  }, (v) => problems({ lanAccess: reachList(v.lanAccess), reachableFrom: reachList(v.reachableFrom) }));
  const what = reachWords(peer);
  return (
    <section aria-labelledby="reach-h">
      <h2 id="reach-h">{t('reach.title')}</h2>
      <ul class="sentences">
        <li>{t('reach.peerMay', { what })}</li>
        {peer.networks.map((n) => <li key={n}>{t('reach.networkMay', { network: n, what })}</li>)}
        <li>{t(peer.networks.length ? 'reach.fromWithNetworks' : 'reach.from', { who: fromWords(peer) })}</li>
      </ul>
      <form onSubmit={submit} noValidate class="cols">
        <TextField form={form} name="lanAccess" label={t('reach.lanAccess')} hint={t('reach.lanAccessHint')} />
        <TextField form={form} name="reachableFrom" label={t('reach.reachableFrom')} hint={t('reach.reachableFromHint')} />
        <FormError form={form} />
        <div class="buttons"><button type="submit" disabled={form.busy}>{t('reach.save')}</button></div>
      </form>
    </section>
  );
}
