// Validation of a peer body against its server: the address must be a free host of the
// server's subnet, the key unique on the server, allowAccess ids peers of the same server.
import type { Store } from '../store/store';
import type { ServerRecord } from '../store/servers';
import { isWireGuardKey } from '../wg/keys';
import { formatIpv4, isHostOf, parseCidr, parseIpv4 } from '../wg/ipv4';
import { EMAIL, badField, readBool, readInt, readIntArray, readString, readTimestamp, type Body } from './fields';

// 8,388,607 GB is the largest limit whose byte count stays a safe JavaScript integer.
export const MAX_LIMIT_GB = 8_388_607;
export const GB = 1024 ** 3;

export interface PeerInput {
  name?: string;
  email?: string;
  ip?: string;
  publicKey?: string;
  allowAccess?: number[];
  allowInternet?: boolean;
  enabled?: boolean;
  dataLimitGB?: number;
  expiresAt?: string | null;
}

export function parsePeerInput(body: Body): PeerInput {
  const input: PeerInput = {
    name: readString(body, 'name', { max: 64 }),
    email: readString(body, 'email', { max: 254 }),
    ip: readString(body, 'ip', { max: 18 }),
    publicKey: readString(body, 'publicKey', { max: 44 }),
    allowAccess: readIntArray(body, 'allowAccess', 1, Number.MAX_SAFE_INTEGER, 10_000),
    allowInternet: readBool(body, 'allowInternet'),
    enabled: readBool(body, 'enabled'),
    dataLimitGB: readInt(body, 'dataLimitGB', 0, MAX_LIMIT_GB),
    expiresAt: readTimestamp(body, 'expiresAt'),
  };
  if (input.email && !EMAIL.test(input.email)) throw badField('email', 'must be an e-mail address');
  if (input.publicKey !== undefined && !isWireGuardKey(input.publicKey)) {
    throw badField('publicKey', 'must be a WireGuard public key (base64 of 32 bytes)');
  }
  if (input.ip !== undefined) {
    const plain = input.ip.replace(/\/32$/, '');
    if (parseIpv4(plain) === null) throw badField('ip', 'must be an IPv4 address such as 10.8.0.2');
    input.ip = plain;
  }
  return input;
}

/** Refuses an address outside the server's subnet, the server's own, or one another peer holds. */
export function checkPeerIp(store: Store, server: ServerRecord, ip: string, selfId: number | null): void {
  const subnet = parseCidr(server.address)!;
  const n = parseIpv4(ip)!;
  if (!isHostOf(subnet, n)) throw badField('ip', `${ip} is not a host address of the server subnet ${server.address}`);
  if (n === subnet.ip) throw badField('ip', `${ip} is the server's own address`);
  const holder = store.peers.idByIp(server.id, ip);
  if (holder !== undefined && holder !== selfId) throw badField('ip', `${ip} is already taken by peer ${holder}`);
}

export function checkPeerKey(store: Store, server: ServerRecord, key: string, selfId: number | null): void {
  if (key === server.publicKey) throw badField('publicKey', "is the server's own public key");
  const holder = store.peers.idByPublicKey(server.id, key);
  if (holder !== undefined && holder !== selfId) throw badField('publicKey', `is already used by peer ${holder}`);
}

export function checkAllowAccess(store: Store, server: ServerRecord, ids: number[], selfId: number | null): void {
  for (const id of ids) {
    if (id === selfId) throw badField('allowAccess', 'must not name the peer itself');
    if (store.peers.serverOf(id) !== server.id) throw badField('allowAccess', `names ${id}, which is not a peer of server ${server.id}`);
  }
}

/** The lowest free host address of the server's subnet, skipping the server's own. */
export function allocatePeerIp(store: Store, server: ServerRecord, firstFree: (used: string[]) => string | null): string {
  const subnet = parseCidr(server.address)!;
  const ip = firstFree([...store.peers.usedIps(server.id), formatIpv4(subnet.ip)]);
  if (ip === null) throw badField('ip', `no free address is left in ${server.address}`);
  return ip;
}
