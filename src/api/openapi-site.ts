// The OpenAPI entries of site-to-site (docs/site-to-site.md): the join route another wgcp
// router calls with a registration token, and this router's own site links. Spread into the
// document (openapi-doc.ts) so that it keeps describing every route served.
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const str = { type: 'string' };
const prefixes = (description: string) => ({ type: 'array', minItems: 1, maxItems: 64, items: str, description });

const SiteLink = {
  type: 'object',
  required: ['name', 'privateKey', 'address', 'peerPublicKey', 'presharedKey', 'endpoint', 'routes'],
  properties: {
    id: { type: 'integer', readOnly: true }, name: str, interface: { ...str, readOnly: true, description: 'wgcps<id>' },
    privateKey: { ...str, writeOnly: true, description: "this router's key for the link (made by `wgcp join`); never shown" },
    publicKey: { ...str, readOnly: true },
    address: { ...str, description: "this router's tunnel address on the other router" }, address6: { type: ['string', 'null'] },
    peerPublicKey: { ...str, description: "the other router's server key" }, presharedKey: { ...str, writeOnly: true },
    endpoint: { ...str, description: "the other router's host:port" },
    routes: prefixes('the other side: its tunnel subnet and LANs, routed into the link'),
    reachableFrom: { oneOf: [{ const: 'lan' }, { type: 'array', maxItems: 64, items: str }], description: 'what the other side may open connections to here: "lan" (this router\'s networks, the default), prefixes (its own addresses or tunnels only if named), or [] (replies only)' },
    createdAt: { type: 'string', format: 'date-time', readOnly: true },
  },
};

const JoinRequest = {
  type: 'object', required: ['token', 'publicKey', 'networks'],
  properties: {
    token: { ...str, format: 'uuid', description: 'a registration token of the server to join' },
    publicKey: { ...str, description: "the joining router's public key (its private key never travels)" },
    networks: prefixes("the joining router's LAN: the new peer's networks"), name: { ...str, maxLength: 48 },
  },
};

const JoinAnswer = {
  type: 'object',
  properties: {
    peerID: { type: 'integer' }, address: str, address6: { type: ['string', 'null'] }, serverPublicKey: str, presharedKey: str, endpoint: str,
    routes: prefixes("what the joining router routes into the link: this server's subnets and this router's LANs"),
  },
};

const failures = { 401: error('missing or wrong credentials'), 403: error('the role of the credentials is below the one this route needs'), 500: error('service failure') };

export const siteApiPaths: Record<string, Record<string, unknown>> = {
  '/api/v1/join': {
    post: {
      summary: 'Site to site: another wgcp router joins as a peer carrying its LAN', security: [], requestBody: { required: true, ...json(JoinRequest) },
      responses: {
        200: { description: 'joined: the link\'s parameters', ...json(JoinAnswer) },
        400: error('`invalid token format`, `token already used`, or a field (`publicKey`, `networks`) refused'),
        403: error('`invalid token` or `token expired`'), 413: error('body larger than 8 KiB'), 429: error('too many failed attempts or requests from this address'), 500: error('service failure'),
      },
    },
  },
  '/api/site-links': {
    get: { summary: "List this router's site links", responses: { 200: { description: 'site links', ...json({ type: 'array', items: SiteLink }) }, ...failures } },
    post: {
      summary: 'Make a site link (wgcp join does, through the admin socket)', requestBody: { required: true, ...json(SiteLink) },
      responses: { 201: { description: 'made and up', ...json(SiteLink) }, 400: error('a field refused (`field` names it): routes overlapping what this router routes already'), 409: error('the interface name is held by a link wgcp did not make'), 413: error('body larger than 1 MiB'), ...failures },
    },
  },
  '/api/site-links/{id}': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    put: {
      summary: 'Change what the other side may open connections to here', requestBody: { required: true, ...json({ type: 'object', required: ['reachableFrom'], properties: { reachableFrom: SiteLink.properties.reachableFrom } }) },
      responses: { 200: { description: 'changed', ...json(SiteLink) }, 400: error('`reachableFrom` refused'), 404: error('not found'), ...failures },
    },
    delete: { summary: 'Remove a site link and its interface', responses: { 204: { description: 'removed' }, 404: error('not found'), ...failures } },
  },
};
