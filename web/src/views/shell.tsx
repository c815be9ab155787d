// The frame of every signed-in view: a skip link, the main navigation, the live stream's
// state, sign-out, and the view the address names. Focus moves to the view on navigation.
import { useEffect, useRef } from 'preact/hooks';
import { useLiveState } from '../live';
import { Notice } from '../notice';
import { href, useRoute } from '../router';
import { Overview } from './overview';
import { ServerForm } from './server-form';
import { ServerPage } from './server-page';
import { PeerForm } from './peer-form';
import { PeerPage } from './peer-page';
import { WebhookPage } from './webhook-page';
import { Devices } from './devices';
import { DevicePage } from './device-page';
import { MailSettings } from './mail-settings';
import { Credentials } from './credentials';
import { KernelBanner } from './kernel-banner';
import { Audit } from './audit';
import { can, currentWho } from '../role';
import { LanguageSwitch, t } from '../i18n';

function view(route: string[]) {
  const [a, id, sub, more] = route;
  if (route.length === 0) return <Overview />;
  if (a === 'servers' && id === 'new' && can('admin')) return <ServerForm />;
  if (a === 'servers' && id && !sub) return <ServerPage id={id} tab="peers" />;
  if (a === 'servers' && id && (sub === 'webhooks' || (sub === 'tokens' && can('operator'))) && !more) return <ServerPage id={id} tab={sub} />;
  if (a === 'servers' && id && sub === 'edit' && can('admin')) return <ServerForm id={id} />;
  if (a === 'servers' && id && sub === 'peers' && more === 'new' && can('operator')) return <PeerForm serverId={id} />;
  if (a === 'peers' && id) return <PeerPage id={id} />;
  if (a === 'webhooks' && id) return <WebhookPage id={id} />;
  if (a === 'devices' && !id) return <Devices />;
  if (a === 'devices' && id) return <DevicePage id={id} />;
  if (a === 'mail' && can('admin')) return <MailSettings />;
  if (a === 'access') return <Credentials />;
  if (a === 'audit' && can('admin')) return <Audit />;
  // A view the role may not use is as absent as an unknown one.
  return <><h1>{t('notFound.title')}</h1><p>{t('notFound.text')} <a href={href()}>{t('notFound.link')}</a>.</p></>;
}

function LiveBadge() {
  const state = useLiveState();
  const text = state === 'live' ? t('live.live') : state === 'connecting' ? t('live.connecting') : t('live.offline');
  return <span class={`live live-${state}`} title={t('live.title')}>{text}</span>;
}

export function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const key = route.join('/');
  const first = useRef(true);
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    main.current?.focus();
  }, [key]);
  const section = route[0] ?? '';
  const link = (to: string, text: string, here: boolean) => <li><a href={to} aria-current={here ? 'page' : undefined}>{text}</a></li>;
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); main.current?.focus(); }}>{t('shell.skip')}</a>
      <header class="top">
        <a class="brand" href={href()}>wgcp</a>
        <nav aria-label={t('nav.main')}>
          <ul>
            {link(href(), t('nav.overview'), section === '' || section === 'servers' || section === 'peers' || section === 'webhooks')}
            {link(href('devices'), t('nav.devices'), section === 'devices')}
            {can('admin') && link(href('mail'), t('nav.mail'), section === 'mail')}
            {link(href('access'), t('nav.access'), section === 'access')}
            {can('admin') && link(href('audit'), t('nav.audit'), section === 'audit')}
          </ul>
        </nav>
        <LiveBadge />
        <span class="who" title={t('shell.who', { name: currentWho().name, role: currentWho().role })}>{currentWho().name} · {currentWho().role}</span>
        <LanguageSwitch />
        <button type="button" class="quiet" onClick={onSignOut}>{t('shell.signOut')}</button>
      </header>
      <KernelBanner route={key} />
      <main id="main" ref={main} tabIndex={-1} key={key}>{view(route)}</main>
      <Notice />
    </>
  );
}
