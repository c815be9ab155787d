// What `wg setconf` is fed for a site link (this router as a peer of another wgcp router):
// its own key, and the other router's server as its one peer, reached at its endpoint with a
// keepalive (the other side may sit behind no public address of ours to answer to: this side
// keeps the path open). Pure; holds secrets.
import type { SiteLinkRecord } from '../store/site-links';
import { isWireGuardKey } from './keys';
import { parseCidr } from '../net/ipv4';
import { parseCidr6 } from '../net/ipv6';

export const SITE_LINK_KEEPALIVE_S = 25;

function checkedKey(key: string, what: string): string {
  if (!isWireGuardKey(key)) throw new Error(`${what} is not a WireGuard key`);
  return key;
}

export function renderSiteLinkConf(link: SiteLinkRecord): string {
  for (const r of link.routes) if (parseCidr(r) === null && parseCidr6(r) === null) throw new Error(`route ${r} is not a prefix`);
  if (/[\s,]/.test(link.endpoint)) throw new Error(`endpoint ${JSON.stringify(link.endpoint)} cannot be used`);
  return [
    '[Interface]',
    `PrivateKey = ${checkedKey(link.privateKey, 'site link private key')}`,
    '',
    '[Peer]',
    `PublicKey = ${checkedKey(link.peerPublicKey, 'site link peer key')}`,
    `PresharedKey = ${checkedKey(link.presharedKey, 'site link preshared key')}`,
    `Endpoint = ${link.endpoint}`,
    `AllowedIPs = ${link.routes.join(', ')}`,
    `PersistentKeepalive = ${SITE_LINK_KEEPALIVE_S}`,
    '',
  ].join('\n');
}

/** The link's own addresses: host addresses (a /32 and a /128), so no subnet of the other side is claimed as on-link. */
export const siteLinkAddresses = (link: Pick<SiteLinkRecord, 'address' | 'address6'>): string[] =>
  link.address6 ? [`${link.address}/32`, `${link.address6}/128`] : [`${link.address}/32`];
