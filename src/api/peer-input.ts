// A peer body as the API takes it: types, ranges and formats. The rules that need the
// server and the other peers are the operation's (ops/peer-rules.ts).
import type { PeerInput } from '../ops/peers';
import { isWireGuardKey } from '../wg/keys';
import { parseIpv4 } from '../wg/ipv4';
import { formatIpv6, parseIpv6 } from '../wg/ipv6';
import { readSchedule } from './schedule-input';
import { readLimitMbps } from './limit-input';
import { readDataLimit } from './data-limit-input';
import { FieldErrors } from './field-errors';
import { readNetworks, readPeerClientOptions } from './client-options-input';
import { EMAIL, badField, readBool, readIntArray, readName, readString, readTimestamp, type Body } from './fields';

/** `now`: the daemon's clock, against which an expiry must lie ahead. */
export function parsePeerInput(body: Body, now: Date): PeerInput {
  // Each field is read even when one before it is bad: a 400 names every bad field at once.
  const bad = new FieldErrors();
  const input: PeerInput = {
    name: bad.read(() => readName(body, 'name', { max: 64 })),
    email: bad.read(() => readString(body, 'email', { max: 254 })),
    ip: bad.read(() => readString(body, 'ip', { max: 18 })),
    ip6: bad.read(() => readString(body, 'ip6', { max: 49 })),
    publicKey: bad.read(() => readString(body, 'publicKey', { max: 44 })),
    allowAccess: bad.read(() => readIntArray(body, 'allowAccess', 1, Number.MAX_SAFE_INTEGER, 10_000)),
    allowInternet: bad.read(() => readBool(body, 'allowInternet')),
    enabled: bad.read(() => readBool(body, 'enabled')),
    ...bad.read(() => readDataLimit(body)),
    expiresAt: bad.read(() => readTimestamp(body, 'expiresAt')),
    schedule: bad.read(() => readSchedule(body)),
    ...bad.read(() => readPeerClientOptions(body)),
  };
  const networks = bad.read(() => readNetworks(body));
  if (networks !== undefined) input.networks = networks;
  const downloadLimitMbps = bad.read(() => readLimitMbps(body, 'downloadLimitMbps'));
  if (downloadLimitMbps !== undefined) input.downloadLimitMbps = downloadLimitMbps;
  const uploadLimitMbps = bad.read(() => readLimitMbps(body, 'uploadLimitMbps'));
  if (uploadLimitMbps !== undefined) input.uploadLimitMbps = uploadLimitMbps;
  // A peer is deleted, keys and all, once its expiry passes: a date already past (a slip in a
  // date picker) would destroy it at the next minute, so it is refused.
  bad.read(() => {
    if (typeof input.expiresAt === 'string' && Date.parse(input.expiresAt) <= now.getTime()) {
      throw badField('expiresAt', `must be in the future (it is ${now.toISOString()} now); null or "" for never`);
    }
  });
  bad.read(() => { if (input.email && !EMAIL.test(input.email)) throw badField('email', 'must be an e-mail address'); });
  bad.read(() => {
    if (input.publicKey !== undefined && !isWireGuardKey(input.publicKey)) throw badField('publicKey', 'must be a WireGuard public key (base64 of 32 bytes)');
  });
  bad.read(() => {
    if (input.ip === undefined) return;
    const plain = input.ip.replace(/\/32$/, '');
    if (parseIpv4(plain) === null) throw badField('ip', 'must be an IPv4 address such as 10.8.0.2');
    input.ip = plain;
  });
  bad.read(() => {
    if (input.ip6 === undefined) return;
    const n = parseIpv6(input.ip6.replace(/\/128$/, ''));
    if (n === null) throw badField('ip6', 'must be an IPv6 address such as fd12:3456:789a:1::2');
    input.ip6 = formatIpv6(n);
  });
  bad.throwAny();
  return input;
}
