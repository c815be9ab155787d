// POST /api/v1/join: another wgcp router joins this one as a site (`wgcp join` there,
// docs/site-to-site.md). Served beside the device API, on both listeners, with its rules:
// no credential but a registration token, failures counted against the source address as
// provisioning's are, the source's request bucket first. The answer carries the preshared
// key: it goes over the device listener's HTTPS (the joining router's private key never
// travels: it sends only its public key).
import { isHttpError } from 'http-errors';
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { DEVICE_BODY_LIMIT } from '../http/body';
import { ok } from '../http/reply';
import { limiterKey } from '../device/failure-limiter';
import { isUuid } from '../device/identifiers';
import { joinSite, type JoinRequest } from '../ops/site-join';
import { PEER_VALUE_RULES } from '../ops/value-rules';
import { readNetworks } from '../resources/read-client-options';
import { badField, readName, type Body } from './fields';
import { sourceAddress } from './provision';

const str = { type: 'string' };
const prefixes = (description: string) => ({ type: 'array', minItems: 1, maxItems: 64, items: str, description });

/** The request and answer of a join: the other router's own shapes, not a stored resource's. */
const joinShapes = () => ({
  request: {
    type: 'object', required: ['token', 'publicKey', 'networks'],
    properties: {
      token: { ...str, format: 'uuid', description: 'a registration token of the server to join' },
      publicKey: { ...str, description: "the joining router's public key (its private key never travels)" },
      networks: prefixes("the joining router's LAN: the new peer's networks"), name: { ...str, maxLength: 48 },
    },
  },
  answer: {
    type: 'object',
    properties: {
      peerID: { type: 'integer' }, address: str, address6: { type: ['string', 'null'] }, serverPublicKey: str, presharedKey: str, endpoint: str,
      routes: prefixes("what the joining router routes into the link: this server's subnets and this router's LANs"),
    },
  },
});

function readJoin(body: Body): { token: string; req: JoinRequest } {
  if (!isUuid(body.token)) throw apiError('WGCP_DEVICE_TOKEN_FORMAT');
  const keyProblem = PEER_VALUE_RULES.publicKey(body.publicKey);
  if (keyProblem) throw badField('publicKey', keyProblem);
  const networks = readNetworks(body);
  if (!networks || networks.length === 0) throw badField('networks', 'must name the LAN behind the joining router: at least one prefix');
  const name = readName(body, 'name', { max: 48, min: 1 }) ?? 'router';
  return { token: body.token.toLowerCase(), req: { publicKey: body.publicKey as string, networks, name } };
}

export function siteJoinRoute(app: App): Route {
  return {
    method: 'POST', path: '/api/v1/join', auth: 'none', bodyLimit: DEVICE_BODY_LIMIT,
    doc: () => {
      const { request, answer } = joinShapes();
      return {
        summary: 'Site to site: another wgcp router joins as a peer carrying its LAN', body: request,
        answers: { 200: { description: 'joined: the link\'s parameters', shape: answer } },
        errors: [
          [400, '`invalid token format`, `token already used`, or a field (`publicKey`, `networks`) refused'], [403, '`invalid token` or `token expired`'],
          [413, 'body larger than 8 KiB'], [429, 'too many failed attempts or requests from this address'], 500,
        ],
      };
    },
    async handler(ctx) {
      const { limiter, admission } = app.services.device;
      const source = sourceAddress(ctx.req);
      const counted = limiterKey(source);
      admission.fromSource(source);
      try {
        const { token, req } = readJoin(await ctx.body());
        const { server, peer, routes } = await joinSite(app, token, req, source, { actor: { kind: 'device', id: null, name: `site ${req.name}`, role: null, address: source } });
        limiter.recordSuccess(counted);
        app.log.info('a site joined', { serverId: server.id, peerId: peer.id, source });
        return ok({
          peerID: peer.id, address: peer.ip, address6: peer.ip6, serverPublicKey: server.publicKey,
          presharedKey: peer.presharedKey, endpoint: server.endpoint, routes,
        });
      } catch (err) {
        if (!isHttpError(err) || err.status >= 500) throw err;
        const wait = limiter.blockedFor(counted);
        limiter.recordFailure(counted);
        if (wait > 0) throw apiError('WGCP_PROVISIONING_THROTTLED', undefined, { headers: { 'Retry-After': String(wait) } });
        throw err;
      }
    },
  };
}
