// The networks behind a peer and the client's own options in the peer form: each an empty text for "the server's default".
// DNS "none" is no DNS line; routes are "full", "split" or prefixes separated by commas.
import type { Peer } from '../types';
import { dnsList, listOf, prefixList, problems, routeList, wholeNumber } from '../checks';
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

const whole = (text: string): number | null => (text.trim() === '' ? null : Number(text.trim()));

/**
 * What the page can see is wrong before sending, all at once, in the page's words. Without it
 * a keepalive of "abc" was sent as null (Number gives NaN, JSON null): the server's default,
 * saved without a word.
 */
export function checkClient(v: ReturnType<typeof clientValuesOf>): Record<string, string> {
  return problems({
    networks: prefixList(v.networks),
    dns: dnsList(v.dns),
    clientAllowedIPs: routeList(v.clientAllowedIPs),
    persistentKeepalive: v.persistentKeepalive.trim() && wholeNumber(v.persistentKeepalive, 0, 65535),
    mtu: v.mtu.trim() && wholeNumber(v.mtu, 1280, 9000),
  });
}

/** The body fields; the API checks each value and names the field it refuses. */
export function clientBodyOf(v: ReturnType<typeof clientValuesOf>): Record<string, unknown> {
  const dns = v.dns.trim();
  const routes = v.clientAllowedIPs.trim();
  return {
    networks: listOf(v.networks),
    dns: dns === '' ? null : dns.toLowerCase() === 'none' ? [] : listOf(dns),
    clientAllowedIPs: routes === '' ? null : ['full', 'split'].includes(routes.toLowerCase()) ? routes.toLowerCase() : listOf(routes),
    persistentKeepalive: whole(v.persistentKeepalive),
    mtu: whole(v.mtu),
  };
}
