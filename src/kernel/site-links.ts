// The site links' interfaces (this router as a peer of another wgcp router, src/ops/site-links.ts):
// one WireGuard device each, made by the same driver as the servers' (kernel module or
// wireguard-go), carrying wgcp's mark, with the link's key and peer, its host addresses,
// and a route through it for each of the other side's prefixes. A change applies one link;
// start-up brings every stored link up again after the servers' reconcile.
import type { Logger } from '../log';
import type { SiteLinkRecord } from '../store/site-links';
import { run, SECRET_FILE } from '../exec/command';
import { checkIfname, DEFAULT_MTU, type LinkDriver } from '../wg/link';
import { addRoutes } from '../wg/peer-routes';
import { renderSiteLinkConf, siteLinkAddresses } from '../wg/site-link-conf';

export interface SiteLinkChange { before: SiteLinkRecord | null; after: SiteLinkRecord | null }

export class SiteLinks {
  private readonly held = new Map<string, SiteLinkRecord>();

  constructor(private readonly log: Logger, private readonly driver: LinkDriver) {}

  /** The interfaces the links hold (start-up's reconcile of the servers leaves them alone). */
  names(): Set<string> { return new Set(this.held.keys()); }

  async apply(change: SiteLinkChange): Promise<void> {
    if (change.before) await this.remove(change.before);
    if (change.after) await this.bringUp(change.after);
  }

  /** Start-up: every stored link; one that fails is logged and left down, the others still come up. */
  async bringUpAll(links: SiteLinkRecord[]): Promise<void> {
    for (const link of links) {
      try {
        await this.bringUp(link);
      } catch (err) {
        this.log.error('a site link could not be brought up', { link: link.id, interface: link.interface, error: err instanceof Error ? err.message : String(err) });
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
    await this.driver.create(link.interface);
    try {
      await this.configure(link);
    } catch (err) {
      await this.driver.remove(link.interface).catch(() => {});
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
  }
}
