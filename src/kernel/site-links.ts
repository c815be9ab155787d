// The site links' interfaces (this router as a peer of another wgcp router, src/ops/site-links.ts):
// one WireGuard device each, made by the same driver as the servers' (kernel module or
// wireguard-go), carrying wgcp's mark, with the link's key and peer, its host addresses,
// and a route through it for each of the other side's prefixes, and its filter in the
// `inet wgcp` table (nft/site-link-policy.ts) before the interface exists, so nothing comes
// in through it unjudged. A change applies one link; start-up brings every stored link up
// again after the servers' reconcile.
import type { Logger } from '../log';
import type { SiteLinkRecord } from '../store/site-links';
import { run, SECRET_FILE } from '../exec/command';
import { checkIfname, DEFAULT_MTU, type LinkDriver } from '../wg/link';
import { linkExists } from '../wg/link-owner';
import { addRoutes } from '../wg/peer-routes';
import { renderSiteLinkConf, siteLinkAddresses } from '../wg/site-link-conf';
import { diff } from '../nft/diff';
import { emptyElements, mergeAll, type PolicyElements } from '../nft/elements';
import { siteLinkSlice } from '../nft/site-link-policy';

export interface SiteLinkChange { before: SiteLinkRecord | null; after: SiteLinkRecord | null }

export class SiteLinks {
  private readonly held = new Map<string, SiteLinkRecord>();

  constructor(private readonly log: Logger, private readonly driver: LinkDriver, private readonly nft: (batch: string) => Promise<void>) {}

  /** The interfaces the links hold (start-up's reconcile of the servers leaves them alone). */
  names(): Set<string> { return new Set(this.held.keys()); }

  /** The links up, as held. */
  list(): SiteLinkRecord[] { return [...this.held.values()]; }

  /** Drift repair (kernel/reconcile-site-links.ts): a held link configured again whole, its interface made again if gone. */
  async repair(link: SiteLinkRecord): Promise<void> {
    if (this.held.get(link.interface) !== link) return;
    if (!linkExists(link.interface)) await this.driver.create(link.interface);
    await this.configure(link);
    this.log.info('site link configured again after drift', { link: link.id, interface: link.interface });
  }

  /** The links' part of the `inet wgcp` table, as held (the whole table and the drift repair's wanted table add it). */
  elements(): PolicyElements { return mergeAll([...this.held.values()].map(siteLinkSlice)); }

  async apply(change: SiteLinkChange): Promise<void> {
    const { before, after } = change;
    if (before && after && sameLink(before, after)) return this.refilter(before, after);
    if (before) await this.remove(before);
    if (after) await this.bringUp(after);
  }

  /** Only the filter changed (reachableFrom): its elements, the interface untouched. */
  private async refilter(before: SiteLinkRecord, after: SiteLinkRecord): Promise<void> {
    await this.nft(diff(siteLinkSlice(before), siteLinkSlice(after)));
    this.held.set(after.interface, after);
  }

  /** Start-up or a promotion: every stored link not up yet; one that fails is logged and left down, the others still come up. */
  async bringUpAll(links: SiteLinkRecord[]): Promise<void> {
    for (const link of links) {
      if (this.held.has(link.interface)) continue;
      try {
        await this.bringUp(link);
      } catch (err) {
        this.log.error('a site link could not be brought up', { link: link.id, interface: link.interface, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** This router became a standby: every link down (the primary holds them up), its filter out of the table. */
  async takeDownAll(): Promise<void> {
    for (const link of [...this.held.values()]) {
      try {
        await this.remove(link);
        this.log.info('site link down: this router is a standby', { link: link.id, interface: link.interface });
      } catch (err) {
        this.log.error('a site link could not be taken down', { link: link.id, interface: link.interface, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** A wireguard-go restart left the device empty: configure it again; false when it is no link's. */
  async restore(ifname: string): Promise<boolean> {
    const link = this.held.get(ifname);
    if (!link) return false;
    await this.configure(link);
    return true;
  }

  private async bringUp(link: SiteLinkRecord): Promise<void> {
    checkIfname(link.interface);
    const filter = siteLinkSlice(link);
    await this.nft(diff(emptyElements(), filter));
    try {
      await this.driver.create(link.interface);
      try {
        await this.configure(link);
      } catch (err) {
        await this.driver.remove(link.interface).catch(() => {});
        throw err;
      }
    } catch (err) {
      await this.nft(diff(filter, emptyElements())).catch(() => {});
      throw err;
    }
    this.held.set(link.interface, link);
    this.log.info('site link up', { link: link.id, interface: link.interface, routes: link.routes.length });
  }

  private async configure(link: SiteLinkRecord): Promise<void> {
    await run('wg', ['setconf', link.interface, SECRET_FILE], { secret: renderSiteLinkConf(link) });
    await run('ip', ['address', 'flush', 'dev', link.interface]);
    for (const a of siteLinkAddresses(link)) await run('ip', [a.includes(':') ? '-6' : '-4', 'address', 'add', a, 'dev', link.interface]);
    await run('ip', ['link', 'set', 'dev', link.interface, 'mtu', String(DEFAULT_MTU), 'up']);
    await addRoutes(link.interface, link.routes);
  }

  private async remove(link: SiteLinkRecord): Promise<void> {
    this.held.delete(link.interface);
    await this.driver.remove(link.interface);
    await this.nft(diff(siteLinkSlice(link), emptyElements()));
  }
}

/** Two rows of one link that differ in their filter at most. */
const sameLink = (a: SiteLinkRecord, b: SiteLinkRecord): boolean => JSON.stringify({ ...a, reachableFrom: null }) === JSON.stringify({ ...b, reachableFrom: null });
