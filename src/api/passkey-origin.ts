// Which site passkeys belong to: the relying party id (a host name) and the origin the
// browser must have signed for. From WGCP_PUBLIC_URL when set; else from the request's Host,
// but only when it names this router (share-origin.ts decides, as for share links): a
// forged Host never makes wgcpd accept signatures made for another site. An address is no
// relying party id for browsers (WebAuthn needs a name): such a Host is refused saying so.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { apiError } from '../error-registry';
import type { Config } from '../config';
import { parseIpv4 } from '../net/ipv4';
import { quoted } from '../ops/value-rules';
import { ownHostNames } from './share-origin';

export interface RelyingParty { rpID: string; origin: string }

const HOST_HEADER = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

export function relyingParty(config: Pick<Config, 'listen' | 'publicUrl'>, req: IncomingMessage): RelyingParty {
  if (config.publicUrl !== null) {
    const url = new URL(config.publicUrl);
    return { rpID: url.hostname, origin: url.origin };
  }
  const host = req.headers.host ?? '';
  const m = HOST_HEADER.exec(host);
  const name = m?.[1].toLowerCase().replace(/\.$/, '') ?? '';
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535) || !ownHostNames(config).has(name)) {
    throw apiError('WGCP_PASSKEY_HOST_UNKNOWN', { host: quoted(host) }, { field: 'Host' });
  }
  if (name.startsWith('[') || parseIpv4(name) !== null) throw apiError('WGCP_PASSKEY_HOST_ADDRESS', { host: quoted(host) }, { field: 'Host' });
  const secure = (req.socket as TLSSocket).encrypted === true;
  return { rpID: name, origin: `${secure ? 'https' : 'http'}://${host.toLowerCase()}` };
}
