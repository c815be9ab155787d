// A site link, described once: a WireGuard tunnel this router keeps to another wgcp router
// (`wgcp join` makes it through the admin socket, docs/site-to-site.md). Its input rules, what
// the API shows (never its private or preshared key) and its OpenAPI schema. Its row is mapped
// by store/site-links.ts, so no column is named here.
import { PEER_VALUE_RULES, endpointPort } from '../ops/value-rules';
import { parseIpv4 } from '../net/ipv4';
import { parseIpv6 } from '../net/ipv6';
import { fieldError } from '../error-registry';
import type { Body, Resource } from './describe';
import { readName, required } from './read';
import { normalPrefix, readNetworkReach } from './read-client-options';

const str = { type: 'string' };

export interface SiteLinkRecord {
  id: number;
  name: string;
  interface: string;
  privateKey: string;
  publicKey: string;
  /** This router's tunnel address on the other one (a host address), and its IPv6 one when it has one. */
  address: string;
  address6: string | null;
  /** The other router's server: its key, the preshared key it made for this link, its endpoint. */
  peerPublicKey: string;
  presharedKey: string;
  endpoint: string;
  /** Prefixes routed into the link: the other router's tunnel subnet and LANs. */
  routes: string[];
  /**
   * What the other side (anything that comes in through the link) may open connections to
   * here: 'lan' (this router's networks, not its own addresses), these prefixes (this
   * router's addresses or tunnels too, if named), or [] (nothing: replies only).
   */
  reachableFrom: 'lan' | string[];
  createdAt: string;
}


/** A key field by its stored rule (a public key's, a preshared key's). */
const key = (rule: 'publicKey' | 'presharedKey') => (b: Body, f: string): string => {
  const problem = PEER_VALUE_RULES[rule](b[f]);
  if (problem) throw fieldError(f, problem);
  return b[f] as string;
};

function readRoutes(b: Body, f: string): string[] {
  const problem = PEER_VALUE_RULES.networks(b[f]);
  if (problem || (b[f] as string[]).length === 0) throw fieldError(f, 'must be a list of 1 to 64 prefixes: the other side\'s tunnel subnet and LANs');
  return [...new Set((b[f] as string[]).map(normalPrefix))];
}

export const SITE_LINK: Resource<SiteLinkRecord> = {
  name: 'SiteLink',
  table: 'site_links',
  required: ['name', 'privateKey', 'address', 'peerPublicKey', 'presharedKey', 'endpoint', 'routes'],
  fields: {
    id: { schema: { type: 'integer' } },
    name: { input: (b, f) => required(readName(b, f, { max: 64, min: 1 }), f), schema: str },
    interface: { schema: { ...str, description: 'wgcps<id>' } },
    privateKey: { seenBy: 'never', input: key('publicKey'), schema: { ...str, description: "this router's key for the link (made by `wgcp join`); never shown" } },
    publicKey: { schema: str },
    address: {
      input: (b, f) => {
        if (typeof b[f] !== 'string' || parseIpv4(b[f]) === null) throw fieldError(f, 'must be this router\'s IPv4 tunnel address on the other router, such as 10.8.0.5');
        return b[f];
      },
      schema: { ...str, description: "this router's tunnel address on the other router" },
    },
    address6: {
      input: (b, f) => {
        const v = b[f] ?? null;
        if (v !== null && (typeof v !== 'string' || parseIpv6(v) === null)) throw fieldError(f, 'must be an IPv6 address, or null');
        return v as string | null;
      },
      schema: { type: ['string', 'null'] },
    },
    peerPublicKey: { input: key('publicKey'), schema: { ...str, description: "the other router's server key" } },
    presharedKey: { seenBy: 'never', input: key('presharedKey'), schema: str },
    endpoint: {
      input: (b, f) => {
        if (typeof b[f] !== 'string' || b[f].length > 260 || endpointPort(b[f]) === null) throw fieldError(f, 'must be the other router\'s host:port');
        return b[f];
      },
      schema: { ...str, description: "the other router's host:port" },
    },
    routes: { input: readRoutes, schema: { type: 'array', minItems: 1, maxItems: 64, items: str, description: 'the other side: its tunnel subnet and LANs, routed into the link' } },
    reachableFrom: {
      input: (b) => readNetworkReach(b, 'reachableFrom'),
      schema: { oneOf: [{ const: 'lan' }, { type: 'array', maxItems: 64, items: str }], description: 'what the other side may open connections to here: "lan" (this router\'s networks, the default), prefixes (its own addresses or tunnels only if named), or [] (replies only)' },
    },
    createdAt: { schema: { type: 'string', format: 'date-time' } },
  },
};
