// This router's links to other wgcp routers (`wgcp join`, docs/site-to-site.md): each a
// WireGuard interface of its own whose one peer is the other router's server, with routes
// to that router's tunnel subnet and LANs. Made and removed as changes of the runner: the
// interface (src/kernel/site-links.ts), the row, the audit line.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Store } from '../store/store';
import type { SiteLinkRecord } from '../store/site-links';
import type { ChangeOptions } from './runner';
import { badField } from './field-error';
import { checkReachableFrom, overlaps } from './network-rules';
import { routerRoutes } from '../net/router-routes';
import { parseCidr } from '../net/ipv4';
import { parseCidr6 } from '../net/ipv6';
import { publicKeyOf } from '../wg/keys';

export type SiteLinkInput = Omit<SiteLinkRecord, 'id' | 'interface' | 'publicKey' | 'createdAt' | 'reachableFrom'> & { reachableFrom?: SiteLinkRecord['reachableFrom'] };

/** What the other side may open connections to here, unless told: this router's networks (the join links LANs). */
export const SITE_LINK_REACH_DEFAULT = 'lan';

/**
 * Refuses routes that would send elsewhere what is routed here already: a default route
 * (a site link is no internet uplink), two that overlap, or one that overlaps a server's
 * subnet, a peer's networks, another site link's routes or this router's own networks.
 */
export function checkSiteRoutes(store: Store, routes: readonly string[], selfIf: string | null): void {
  const refuse = (r: string, why: string) => { throw badField('routes', `${r} ${why}`); };
  const links = store.siteLinks.list().filter((l) => l.interface !== selfIf);
  const skip = new Set([...store.servers.list().map((s) => s.interface), ...links.map((l) => l.interface), ...(selfIf ? [selfIf] : [])]);
  const own = routerRoutes(skip);
  for (const [i, r] of routes.entries()) {
    if ((parseCidr(r) ?? parseCidr6(r))!.prefix === 0) refuse(r, 'is a default route: a site link carries the other site\'s networks, not the internet');
    for (const other of routes.slice(i + 1)) if (overlaps(r, other)) refuse(r, `overlaps ${other}, given too`);
    for (const s of store.servers.list()) {
      for (const a of [s.address, s.address6]) if (a && overlaps(r, a)) refuse(r, `overlaps the subnet ${a} of server ${s.id}`);
    }
    for (const held of store.peers.networksHeld()) for (const n of held.networks) if (overlaps(r, n)) refuse(r, `overlaps ${n}, behind peer ${held.id}`);
    for (const l of links) for (const n of l.routes) if (overlaps(r, n)) refuse(r, `overlaps ${n}, routed into site link ${l.id}`);
    for (const o of own) if (overlaps(r, o.prefix)) refuse(r, `overlaps this router's own network ${o.prefix} (on ${o.dev})`);
  }
}

export function createSiteLink(app: App, input: SiteLinkInput, opts?: ChangeOptions): Promise<SiteLinkRecord> {
  const now = app.now().toISOString();
  return app.runner.run('siteLink.create', (store) => {
    const id = store.siteLinks.nextId();
    const link: SiteLinkRecord = { ...input, reachableFrom: input.reachableFrom ?? SITE_LINK_REACH_DEFAULT, id, interface: `wgcps${id}`, publicKey: publicKeyOf(input.privateKey), createdAt: now };
    if (app.kernel.isForeignLink(link.interface)) throw apiError('WGCP_INTERFACE_FOREIGN', { name: link.interface }, { field: 'interface' });
    checkSiteRoutes(store, link.routes, null);
    checkReachableFrom(link.reachableFrom);
    return {
      kernel: [{ siteLink: { before: null, after: link } }],
      commit({ store }) {
        store.siteLinks.insert(link);
        return link;
      },
      audit: (l) => ({ targetType: 'siteLink', targetId: l.id, summary: { name: l.name, endpoint: l.endpoint, routes: l.routes, reachableFrom: l.reachableFrom } }),
    };
  }, opts);
}

/** A link's filter changed in place (the table's elements only; the interface stays up). */
export function setSiteLinkReach(app: App, id: number, reachableFrom: SiteLinkRecord['reachableFrom'], opts?: ChangeOptions): Promise<SiteLinkRecord> {
  return app.runner.run('siteLink.update', (store) => {
    const before = store.siteLinks.get(id);
    if (!before) throw apiError('WGCP_SITE_LINK_NOT_FOUND');
    checkReachableFrom(reachableFrom);
    const after: SiteLinkRecord = { ...before, reachableFrom };
    return {
      kernel: [{ siteLink: { before, after } }],
      commit({ store }) {
        store.siteLinks.setReach(after);
        return after;
      },
      audit: (l) => ({ targetType: 'siteLink', targetId: l.id, summary: { name: l.name, reachableFrom: l.reachableFrom } }),
    };
  }, opts);
}

export function deleteSiteLink(app: App, id: number, opts?: ChangeOptions): Promise<SiteLinkRecord> {
  return app.runner.run('siteLink.delete', (store) => {
    const link = store.siteLinks.get(id);
    if (!link) throw apiError('WGCP_SITE_LINK_NOT_FOUND');
    return {
      kernel: [{ siteLink: { before: link, after: null } }],
      commit({ store }) {
        store.siteLinks.delete(id);
        return link;
      },
      audit: (l) => ({ targetType: 'siteLink', targetId: l.id, summary: { name: l.name } }),
    };
  }, opts);
}
