// The networks behind a peer and the client's own options in the peer form: each an empty text for "the server's default".
// DNS "none" is no DNS line; routes are "full", "split" or prefixes separated by commas.
import type { Peer } from '../types';
import { t } from '../i18n';

export const clientHints = () => ({
  networks: t('client.networks'),
  dns: t('client.dns'),
  clientAllowedIPs: t('client.routes'),
  persistentKeepalive: t('client.keepalive'),
  mtu: t('client.mtu'),
});

export const clientValuesOf = (p: Peer) => ({
  networks: p.networks.join(', '),
  dns: p.dns === null ? '' : p.dns.length === 0 ? 'none' : p.dns.join(', '),
  clientAllowedIPs: p.clientAllowedIPs === null ? '' : typeof p.clientAllowedIPs === 'string' ? p.clientAllowedIPs : p.clientAllowedIPs.join(', '),
  persistentKeepalive: p.persistentKeepalive === null ? '' : String(p.persistentKeepalive),
  mtu: p.mtu === null ? '' : String(p.mtu),
});

const list = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s !== '');
const whole = (text: string): number | null => (text.trim() === '' ? null : Number(text.trim()));

/** The body fields; the API checks each value and names the field it refuses. */
export function clientBodyOf(v: ReturnType<typeof clientValuesOf>): Record<string, unknown> {
  const dns = v.dns.trim();
  const routes = v.clientAllowedIPs.trim();
  return {
    networks: list(v.networks),
    dns: dns === '' ? null : dns.toLowerCase() === 'none' ? [] : list(dns),
    clientAllowedIPs: routes === '' ? null : routes === 'full' || routes === 'split' ? routes : list(routes),
    persistentKeepalive: whole(v.persistentKeepalive),
    mtu: whole(v.mtu),
  };
}
