// A server body as the API takes it: types, ranges and formats. The rules that need the
// other servers are the operation's (ops/server-rules.ts).
import type { ServerInput } from '../ops/servers';
import { SERVER_VALUE_RULES } from '../ops/value-rules';
import { parseIpv4 } from '../wg/ipv4';
import { formatCidr6, formatIpv6, parseCidr6, parseIpv6 } from '../wg/ipv6';
import { badField, oneOf, readInt, readName, readString, type Body } from './fields';
import { INTERFACE_NAME, INTERFACE_NAME_RULE } from '../wg/interface-name';
import { readServerClientDefaults, readServerLanAccess } from '../resources/read-client-options';

/** Refuses a given value that breaks its stored rule (ops/value-rules.ts): 400 naming the field. */
function keepRule(field: string, value: unknown): void {
  const problem = value === undefined ? null : SERVER_VALUE_RULES[field](value);
  if (problem) throw badField(field, problem);
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
    ...readServerClientDefaults(body),
  };
  const lanAccess = readServerLanAccess(body);
  if (lanAccess !== undefined) input.lanAccess = lanAccess;
  for (const field of ['endpoint', 'address', 'address6', 'dns'] as const) keepRule(field, input[field]);
  if (typeof input.address6 === 'string') input.address6 = formatCidr6(parseCidr6(input.address6)!);
  if (input.dns !== undefined && input.dns !== 'auto' && input.dns !== '') {
    input.dns = input.dns.split(',').map((s) => s.trim()).map((p) => (parseIpv4(p) !== null ? p : formatIpv6(parseIpv6(p)!))).join(', ');
  }
  return input;
}

