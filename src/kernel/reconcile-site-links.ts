// The site links' drift (this router joined another wgcp router, docs/site-to-site.md): each
// link's interface there, wgcp's and up, its key and one peer (key, preshared key, allowed IPs,
// keepalive) as `wg show dump` shows them, its host addresses, and a route through it for each
// of the other side's prefixes. Whatever differs, the link is configured again whole (what it
// is made with: idempotent), or made again where its interface is gone. The endpoint is not
// compared: WireGuard follows the other router's roaming. Two tools a link (`wg`, `ip`), and
// none on a router without links.
import { run } from '../exec/command';
import type { SiteLinkRecord } from '../store/site-links';
import { linkInfo } from '../wg/link-owner';
import { presharedKeyAsShown } from '../wg/keys';
import { siteLinkAddresses, SITE_LINK_KEEPALIVE_S } from '../wg/site-link-conf';
import { routerRoutes } from '../net/router-routes';
import type { Comparer, Finding } from './reconcile-target';

const sorted = (list: readonly string[]): string => [...list].sort().join(',');

/** What differs in a link's `wg show <if> dump`: its own key, or its one peer; empty when nothing does. */
export function siteLinkConfDrift(dump: string, link: SiteLinkRecord): string[] {
  const [own, ...peers] = dump.trim().split('\n').map((l) => l.split('\t'));
  const out: string[] = [];
  if (own?.[0] !== link.privateKey) out.push('its key');
  if (peers.length !== 1 || peers[0][0] !== link.peerPublicKey) return [...out, 'its peer'];
  const [, psk, , allowed, , , , keepalive] = peers[0];
  if (psk !== presharedKeyAsShown(link.presharedKey)) out.push('its preshared key');
  const shown = allowed === '(none)' ? [] : allowed.split(',').map((a) => a.trim());
  if (sorted(shown) !== sorted(link.routes)) out.push('its allowed IPs');
  if (keepalive !== String(SITE_LINK_KEEPALIVE_S)) out.push('its keepalive');
  return out;
}

/** The link as `ip -j address show dev` lists it: up or not, its addresses (IPv6 link-local ones left out). */
function linkOf(json: string): { up: boolean; addresses: string[] } {
  const [dev] = JSON.parse(json) as { flags?: string[]; addr_info?: { local: string; prefixlen: number; scope?: string }[] }[];
  return { up: dev?.flags?.includes('UP') ?? false, addresses: (dev?.addr_info ?? []).filter((a) => a.scope !== 'link').map((a) => `${a.local}/${a.prefixlen}`) };
}

/** The comparer: every link the plane holds (a standby holds none), in the 2-second pass beside the servers' links. */
export const siteLinkComparer: Comparer = {
  kind: 'siteLink',
  async inspect(t, servers) {
    // A pass about some servers (their dumps differed) is not about the links.
    const links = servers === null && t.siteLinks ? t.siteLinks() : [];
    if (links.length === 0) return [];
    const routes = routerRoutes(new Set());
    const out: Finding[] = [];
    for (const link of links) {
      const ifname = link.interface;
      const info = linkInfo(ifname);
      // A link of that name that is not wgcp's is never touched.
      if (info && !info.ours) continue;
      const found = (counts: Record<string, number>, summary: string): Finding => ({
        kind: 'siteLink', serverId: null, interface: ifname, counts, items: Object.values(counts).reduce((n, c) => n + c, 0),
        summary: `${ifname} (site link ${link.id}): ${summary}`, repair: () => t.repairSiteLink!(link),
      });
      if (!info) {
        // wireguard-go's supervisor makes its interface again and the plane configures it.
        if (t.driver !== 'wireguard-go') out.push(found({ siteLinksMissing: 1 }, 'the interface is gone'));
        continue;
      }
      const wrong: string[] = [];
      const { up, addresses } = linkOf(await run('ip', ['-j', 'address', 'show', 'dev', ifname]).catch(() => '[]'));
      if (!up) wrong.push('it is down');
      const conf = siteLinkConfDrift(await run('wg', ['show', ifname, 'dump']).catch(() => ''), link);
      if (conf.length) wrong.push(`${conf.join(', ')} differ`);
      const addressesWrong = sorted(addresses) !== sorted(siteLinkAddresses(link));
      if (addressesWrong) wrong.push('its addresses differ');
      const held = new Set(routes.filter((r) => r.dev === ifname).map((r) => r.prefix));
      const missing = link.routes.filter((r) => !held.has(r));
      if (missing.length) wrong.push(`${missing.length} routes missing (${missing.slice(0, 4).join(', ')})`);
      if (wrong.length === 0) continue;
      out.push(found({ linksDown: up ? 0 : 1, confWrong: conf.length ? 1 : 0, addressesWrong: addressesWrong ? 1 : 0, routesMissing: missing.length }, wrong.join('; ')));
    }
    return out;
  },
};
