// This router's site links (`wgcp join` makes them through the admin socket; the API lists
// them, narrows what their other side may reach here, and removes them): GET /api/site-links,
// POST /api/site-links, PUT /api/site-links/:id (reachableFrom), DELETE /api/site-links/:id.
// A link is shown without its private or preshared key.
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import type { SiteLinkRecord } from '../store/site-links';
import { createSiteLink, deleteSiteLink, setSiteLinkReach, type SiteLinkInput } from '../ops/site-links';
import { PEER_VALUE_RULES, endpointPort } from '../ops/value-rules';
import { parseIpv4 } from '../net/ipv4';
import { parseIpv6 } from '../net/ipv6';
import { normalPrefix, readNetworkReach } from '../resources/read-client-options';
import { badField, parseId, readName, required, type Body } from './fields';

export const presentSiteLink = (l: SiteLinkRecord) => ({
  id: l.id, name: l.name, interface: l.interface, publicKey: l.publicKey, address: l.address, address6: l.address6,
  peerPublicKey: l.peerPublicKey, endpoint: l.endpoint, routes: l.routes, reachableFrom: l.reachableFrom, createdAt: l.createdAt,
});

function readSiteLink(body: Body): SiteLinkInput {
  for (const [field, rule] of [['privateKey', 'publicKey'], ['peerPublicKey', 'publicKey'], ['presharedKey', 'presharedKey']] as const) {
    const problem = PEER_VALUE_RULES[rule](body[field]);
    if (problem) throw badField(field, problem);
  }
  if (typeof body.address !== 'string' || parseIpv4(body.address) === null) throw badField('address', 'must be this router\'s IPv4 tunnel address on the other router, such as 10.8.0.5');
  const address6 = body.address6 ?? null;
  if (address6 !== null && (typeof address6 !== 'string' || parseIpv6(address6) === null)) throw badField('address6', 'must be an IPv6 address, or null');
  if (typeof body.endpoint !== 'string' || body.endpoint.length > 260 || endpointPort(body.endpoint) === null) throw badField('endpoint', 'must be the other router\'s host:port');
  const problem = PEER_VALUE_RULES.networks(body.routes);
  if (problem || (body.routes as string[]).length === 0) throw badField('routes', 'must be a list of 1 to 64 prefixes: the other side\'s tunnel subnet and LANs');
  const routes = [...new Set((body.routes as string[]).map(normalPrefix))];
  return {
    name: required(readName(body, 'name', { max: 64, min: 1 }), 'name'), privateKey: body.privateKey as string, address: body.address,
    address6: address6 as string | null, peerPublicKey: body.peerPublicKey as string, presharedKey: body.presharedKey as string,
    endpoint: body.endpoint, routes, reachableFrom: readNetworkReach(body, 'reachableFrom'),
  };
}

export function siteLinkRoutes(app: App): Route[] {
  return [
    { method: 'GET', path: '/api/site-links', auth: 'control', role: 'viewer', handler: () => ok(app.store.siteLinks.list().map(presentSiteLink)) },
    {
      method: 'POST', path: '/api/site-links', auth: 'control', role: 'admin',
      async handler(ctx) {
        return created(presentSiteLink(await createSiteLink(app, readSiteLink(await ctx.body()), { actor: ctx.actor })));
      },
    },
    {
      method: 'PUT', path: '/api/site-links/:id', auth: 'control', role: 'admin',
      async handler(ctx) {
        const reach = readNetworkReach(await ctx.body(), 'reachableFrom');
        if (reach === undefined) throw badField('reachableFrom', 'is required: "lan", prefixes, or [] (none)');
        return ok(presentSiteLink(await setSiteLinkReach(app, parseId(ctx.params.id, 'site link'), reach, { actor: ctx.actor })));
      },
    },
    {
      method: 'DELETE', path: '/api/site-links/:id', auth: 'control', role: 'admin',
      async handler(ctx) {
        await deleteSiteLink(app, parseId(ctx.params.id, 'site link'), { actor: ctx.actor });
        return noContent();
      },
    },
  ];
}
