// A server's defaults for its peers (what a new peer inherits and a peer without its own value
// follows): the client's DNS, routes, keepalive and MTU, and lanAccess, as text in the server
// form and back to the API's values. The words are the peer form's: "auto"/"none" for DNS,
// "full"/"split" or prefixes for routes, "lan" or prefixes for lanAccess.
import { dnsList, listOf, problems, reachList, routeList, wholeNumber } from '../checks';
import { t } from '../i18n';
import type { Server } from '../types';

/** The daemon's keepalive when none is set (src/wg/client-options.ts DEFAULT_KEEPALIVE); an emptied field goes back to it. */
const DEFAULT_KEEPALIVE = 25;

export const NO_DEFAULTS = { dns: '', clientAllowedIPs: '', persistentKeepalive: '', mtu: '', lanAccess: '' };
export type DefaultValues = typeof NO_DEFAULTS;

/** The server's DNS as typed: empty is "auto" (the default), "none" is no DNS line (the API's ""). */
export const dnsText = (dns: string): string => (dns === 'auto' ? '' : dns === '' ? 'none' : dns);

export const defaultValuesOf = (s: Server): DefaultValues => ({
  dns: dnsText(s.dns),
  clientAllowedIPs: s.clientAllowedIPs === null ? '' : typeof s.clientAllowedIPs === 'string' ? s.clientAllowedIPs : s.clientAllowedIPs.join(', '),
  persistentKeepalive: String(s.persistentKeepalive),
  mtu: s.mtu === null ? '' : String(s.mtu),
  lanAccess: s.lanAccess === 'lan' ? 'lan' : s.lanAccess.join(', '),
});

export const checkDefaults = (v: DefaultValues): Record<string, string> => problems({
  dns: v.dns.trim() && v.dns.trim().toLowerCase() !== 'auto' && dnsList(v.dns),
  clientAllowedIPs: routeList(v.clientAllowedIPs),
  persistentKeepalive: v.persistentKeepalive.trim() && wholeNumber(v.persistentKeepalive, 0, 65535),
  mtu: v.mtu.trim() && wholeNumber(v.mtu, 1280, 9000),
  lanAccess: v.lanAccess.trim() && reachList(v.lanAccess),
});

/**
 * The body fields. An empty field is the default: on an edit it is sent as the default (so
 * clearing a field goes back to it), on a new server it is left out (the daemon's default).
 */
export function defaultsBodyOf(v: DefaultValues, editing: boolean): Record<string, unknown> {
  const dns = v.dns.trim();
  const routes = v.clientAllowedIPs.trim();
  const reach = v.lanAccess.trim();
  const body: Record<string, unknown> = {
    dns: dns === '' || dns.toLowerCase() === 'auto' ? 'auto' : dns.toLowerCase() === 'none' ? '' : listOf(dns).join(', '),
    clientAllowedIPs: routes === '' ? null : ['full', 'split'].includes(routes.toLowerCase()) ? routes.toLowerCase() : listOf(routes),
    persistentKeepalive: v.persistentKeepalive.trim() === '' ? DEFAULT_KEEPALIVE : Number(v.persistentKeepalive.trim()),
    mtu: v.mtu.trim() === '' ? null : Number(v.mtu.trim()),
    lanAccess: reach.toLowerCase() === 'lan' ? 'lan' : listOf(reach),
  };
  if (!editing) for (const k of Object.keys(NO_DEFAULTS) as (keyof DefaultValues)[]) if (v[k].trim() === '') delete body[k];
  return body;
}

/** "Server default: …" under a peer's field: what the peer gets while its own field is empty. */
export function serverDefaultWords(s: Server, allowInternet: boolean): Record<'dns' | 'clientAllowedIPs' | 'persistentKeepalive' | 'mtu', string> {
  const v = defaultValuesOf(s);
  const say = (value: string) => t('client.serverDefault', { value });
  return {
    dns: say(v.dns || 'auto'),
    // No server default: full for a peer allowed the internet, split for the others.
    clientAllowedIPs: say(v.clientAllowedIPs || (allowInternet ? 'full' : 'split')),
    persistentKeepalive: say(v.persistentKeepalive),
    mtu: say(v.mtu || t('client.mtuUnset')),
  };
}
