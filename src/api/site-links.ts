// This router's site links (`wgcp join` makes them through the admin socket; the API lists
// them, narrows what their other side may reach here, and removes them): GET /api/site-links,
// POST /api/site-links, PUT /api/site-links/:id (reachableFrom), DELETE /api/site-links/:id.
// A link is shown without its private or preshared key; its fields, rules and schema are
// resources/site-link.ts, each route's shapes its `doc`.
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import type { SiteLinkRecord } from '../store/site-links';
import { createSiteLink, deleteSiteLink, setSiteLinkReach, type SiteLinkInput } from '../ops/site-links';
import { parseInput, present } from '../resources/describe';
import { SITE_LINK } from '../resources/site-link';
import { readNetworkReach } from '../resources/read-client-options';
import { badField, parseId, type Body } from './fields';

export const presentSiteLink = (l: SiteLinkRecord) => present(SITE_LINK, l, 'viewer');

/** A new link's fields by their rules (resources/site-link.ts); one 400 names every bad one. */
const readSiteLink = (body: Body): SiteLinkInput => parseInput(SITE_LINK, body, { now: new Date() }) as SiteLinkInput;

export function siteLinkRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/site-links', auth: 'control', role: 'viewer',
      doc: () => ({ summary: "List this router's site links", answers: { 200: { description: 'site links', shape: ['SiteLink'] } } }),
      handler: () => ok(app.store.siteLinks.list().map(presentSiteLink)),
    },
    {
      method: 'POST', path: '/api/site-links', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'Make a site link (wgcp join does, through the admin socket)', body: 'SiteLink',
        answers: { 201: { description: 'made and up', shape: 'SiteLink' } },
        errors: [[400, 'a field refused (`field` names it): routes overlapping what this router routes already'], [409, 'the interface name is held by a link wgcp did not make'], 413],
      }),
      async handler(ctx) {
        return created(presentSiteLink(await createSiteLink(app, readSiteLink(await ctx.body()), { actor: ctx.actor })));
      },
    },
    {
      method: 'PUT', path: '/api/site-links/:id', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'Change what the other side may open connections to here',
        body: { type: 'object', required: ['reachableFrom'], properties: { reachableFrom: SITE_LINK.fields.reachableFrom.schema } },
        answers: { 200: { description: 'changed', shape: 'SiteLink' } },
        errors: [[400, '`reachableFrom` refused'], 404],
      }),
      async handler(ctx) {
        const reach = readNetworkReach(await ctx.body(), 'reachableFrom');
        if (reach === undefined) throw badField('reachableFrom', 'is required: "lan", prefixes, or [] (none)');
        return ok(presentSiteLink(await setSiteLinkReach(app, parseId(ctx.params.id, 'site link'), reach, { actor: ctx.actor })));
      },
    },
    {
      method: 'DELETE', path: '/api/site-links/:id', auth: 'control', role: 'admin',
      doc: () => ({ summary: 'Remove a site link and its interface', answers: { 204: { description: 'removed' } }, errors: [404] }),
      async handler(ctx) {
        await deleteSiteLink(app, parseId(ctx.params.id, 'site link'), { actor: ctx.actor });
        return noContent();
      },
    },
  ];
}
