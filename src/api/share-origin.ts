// Where a share link points. A link is sent to someone else and opened once: built from the
// request's Host header, a Host of the attacker's choosing (a request through a proxy, a DNS
// name that resolves elsewhere) would hand out a link to another site, which then gets the
// token. So the link is built on WGCP_PUBLIC_URL; unset, only on a Host that names this
// router: its listen address, an address of its interfaces, its host name or localhost (any
// port: a reverse proxy on the router itself is still the router). Anything else is refused,
// saying to set WGCP_PUBLIC_URL.
import os from 'node:os';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { apiError } from '../error-registry';
import type { Config } from '../config';
import { parseIpv4 } from '../net/ipv4';
import { formatIpv6, parseIpv6 } from '../net/ipv6';
import { quoted } from '../ops/value-rules';

const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;
const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** An address or a name as compared: IPv6 in RFC 5952 form, names in lower case. */
function canonical(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '');
  const six = parseIpv6(bare);
  return six !== null && parseIpv4(bare) === null ? formatIpv6(six) : bare.toLowerCase().replace(/\.$/, '');
}

/** The names and addresses of this router, now (interfaces come and go). */
export function ownHostNames(config: Pick<Config, 'listen'>): Set<string> {
  const names = new Set(['localhost', canonical(os.hostname())]);
  if (!UNSPECIFIED.has(config.listen.host)) names.add(canonical(config.listen.host));
  for (const list of Object.values(os.networkInterfaces())) for (const i of list ?? []) names.add(canonical(i.address));
  return names;
}

/** The base a share link is built on (no trailing "/"), or a 400 naming the Host header. */
export function shareBase(config: Pick<Config, 'listen' | 'publicUrl'>, req: IncomingMessage): string {
  if (config.publicUrl !== null) return config.publicUrl;
  const secure = (req.socket as TLSSocket).encrypted === true;
  const host = req.headers.host ?? '';
  const m = HOST_HEADER.exec(host);
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535) || !ownHostNames(config).has(canonical(m[1]))) {
    throw apiError('WGCP_SHARE_HOST_UNKNOWN', { host: quoted(host) }, { field: 'Host' });
  }
  return `${secure ? 'https' : 'http'}://${host}`;
}
