// A peer body as the API takes it: types, ranges and formats. The rules that need the
// server and the other peers are the operation's (ops/peer-rules.ts).
import type { PeerInput } from '../ops/peers';
import { isWireGuardKey } from '../wg/keys';
import { parseIpv4 } from '../wg/ipv4';
import { formatIpv6, parseIpv6 } from '../wg/ipv6';
import { readSchedule } from './schedule-input';
import { readLimitMbps } from './limit-input';
import { readNetworks, readPeerClientOptions } from './client-options-input';
import { EMAIL, badField, readBool, readInt, readIntArray, readName, readString, readTimestamp, type Body } from './fields';

// 8,388,607 GB is the largest limit whose byte count stays a safe JavaScript integer.
export const MAX_LIMIT_GB = 8_388_607;

/** `now`: the daemon's clock, against which an expiry must lie ahead. */
export function parsePeerInput(body: Body, now: Date): PeerInput {
  const input: PeerInput = {
    name: readName(body, 'name', { max: 64 }),
    email: readString(body, 'email', { max: 254 }),
    ip: readString(body, 'ip', { max: 18 }),
    ip6: readString(body, 'ip6', { max: 49 }),
    publicKey: readString(body, 'publicKey', { max: 44 }),
    allowAccess: readIntArray(body, 'allowAccess', 1, Number.MAX_SAFE_INTEGER, 10_000),
    allowInternet: readBool(body, 'allowInternet'),
    enabled: readBool(body, 'enabled'),
    dataLimitGB: readInt(body, 'dataLimitGB', 0, MAX_LIMIT_GB),
    expiresAt: readTimestamp(body, 'expiresAt'),
    schedule: readSchedule(body),
    ...readPeerClientOptions(body),
  };
  const networks = readNetworks(body);
  if (networks !== undefined) input.networks = networks;
  const downloadLimitMbps = readLimitMbps(body, 'downloadLimitMbps');
  if (downloadLimitMbps !== undefined) input.downloadLimitMbps = downloadLimitMbps;
  const uploadLimitMbps = readLimitMbps(body, 'uploadLimitMbps');
  if (uploadLimitMbps !== undefined) input.uploadLimitMbps = uploadLimitMbps;
  // A peer is deleted, keys and all, once its expiry passes: a date already past (a slip in a
  // date picker) would destroy it at the next minute, so it is refused.
  if (typeof input.expiresAt === 'string' && Date.parse(input.expiresAt) <= now.getTime()) {
    throw badField('expiresAt', `must be in the future (it is ${now.toISOString()} now); null or "" for never`);
  }
  if (input.email && !EMAIL.test(input.email)) throw badField('email', 'must be an e-mail address');
  if (input.publicKey !== undefined && !isWireGuardKey(input.publicKey)) {
    throw badField('publicKey', 'must be a WireGuard public key (base64 of 32 bytes)');
  }
  if (input.ip !== undefined) {
    const plain = input.ip.replace(/\/32$/, '');
    if (parseIpv4(plain) === null) throw badField('ip', 'must be an IPv4 address such as 10.8.0.2');
    input.ip = plain;
  }
  if (input.ip6 !== undefined) {
    const n = parseIpv6(input.ip6.replace(/\/128$/, ''));
    if (n === null) throw badField('ip6', 'must be an IPv6 address such as fd12:3456:789a:1::2');
    input.ip6 = formatIpv6(n);
  }
  return input;
}

