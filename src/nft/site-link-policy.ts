// What a site link (this router joined another wgcp router, docs/site-to-site.md) puts in
// the `inet wgcp` table: its interface, so that what comes in through it is judged (replies,
// and what its reachableFrom opens; nothing else of this router's: not its own addresses,
// not its tunnels), and that reachableFrom. Pure.
import type { SiteLinkRecord } from '../store/site-links';
import { emptyElements, ifnameElement, isPrefix6, prefixElement, type PolicyElements } from './elements';

export type SiteLinkFilter = Pick<SiteLinkRecord, 'interface' | 'reachableFrom'>;

export function siteLinkSlice(link: SiteLinkFilter | null): PolicyElements {
  const out = emptyElements();
  if (!link) return out;
  const ifname = ifnameElement(link.interface);
  out.siteLinks.add(ifname);
  if (link.reachableFrom === 'lan') out.siteReachLan.add(ifname);
  else for (const p of link.reachableFrom) (isPrefix6(p) ? out.siteReach6 : out.siteReach).add(`${ifname} . ${prefixElement(p)}`);
  return out;
}
