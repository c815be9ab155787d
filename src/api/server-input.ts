// A server body as the API takes it: types, ranges and formats. The rules that need the
// other servers are the operation's (ops/server-rules.ts).
import type { ServerInput } from '../ops/servers';
import { endpointPort } from '../ops/server-rules';
import { parseCidr, parseIpv4, isHostOf } from '../wg/ipv4';
import { formatCidr6, formatIpv6, isHostOf6, parseCidr6, parseIpv6 } from '../wg/ipv6';
import { badField, oneOf, readInt, readName, readString, type Body } from './fields';
import { INTERFACE_NAME, INTERFACE_NAME_RULE } from '../wg/interface-name';

// No leading '-' or '.': the name reaches `ip` and `wg` as an argument.

function isIpAddress(text: string): boolean {
  return parseIpv4(text) !== null || parseIpv6(text) !== null;
}

export function parseServerInput(body: Body): ServerInput {
  const input: ServerInput = {
    name: readName(body, 'name', { max: 64, min: 1 }),
    endpoint: readString(body, 'endpoint', { max: 260 }),
    mode: oneOf(body, 'mode', ['forward', 'standalone'] as const),
    interface: readString(body, 'interface', { max: 15, pattern: INTERFACE_NAME, describe: INTERFACE_NAME_RULE }),
    address: readString(body, 'address', { max: 18 }),
    address6: body.address6 === null ? null : readString(body, 'address6', { max: 49 }),
    listenPort: readInt(body, 'listenPort', 1, 65535),
    dns: readString(body, 'dns', { max: 200 }),
    mtu: body.mtu === null ? null : readInt(body, 'mtu', 1280, 9000),
  };
  if (input.endpoint !== undefined && endpointPort(input.endpoint) === null) {
    throw badField('endpoint', 'must be host:port, such as vpn.example.com:51820 or 203.0.113.7:51820');
  }
  if (input.address !== undefined) {
    const c = parseCidr(input.address);
    if (!c || c.prefix < 8 || c.prefix > 30 || !isHostOf(c, c.ip)) {
      throw badField('address', 'must be the server tunnel address with its prefix, such as 10.8.0.1/24 (prefix 8 to 30)');
    }
  }
  if (typeof input.address6 === 'string') {
    const c = parseCidr6(input.address6);
    if (!c || c.prefix < 16 || c.prefix > 124 || !isHostOf6(c, c.ip)) {
      throw badField('address6', 'must be the server IPv6 tunnel address with its prefix, such as fd12:3456:789a:1::1/64 (prefix 16 to 124), or null');
    }
    input.address6 = formatCidr6(c);
  }
  if (input.dns !== undefined) {
    const parts = input.dns.split(',').map((s) => s.trim());
    if (parts.some((p) => !isIpAddress(p))) throw badField('dns', 'must be one or more IP addresses separated by commas');
    input.dns = parts.map((p) => (parseIpv4(p) !== null ? p : formatIpv6(parseIpv6(p)!))).join(', ');
  }
  return input;
}

