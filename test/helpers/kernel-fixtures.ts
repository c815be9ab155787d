// Server and peer records for the kernel-plane unit tests and the benchmark: real keys,
// addresses in 10.<server>.0.0/16 and fd77:0:<server>::/64.
import type { PeerRecord } from '../../src/store/peers';
import { newPeerRecord } from '../../src/resources/peer';
import type { ServerRecord } from '../../src/store/servers';
import { generateKeyPair, generatePresharedKey } from '../../src/wg/keys';
import { formatIpv4 } from '../../src/net/ipv4';

const T = '2026-11-22T10:00:00.000Z';

export function fixtureServer(id: number, over: Partial<ServerRecord> = {}): ServerRecord {
  const keys = generateKeyPair();
  return {
    id, name: `s${id}`, endpoint: `192.0.2.1:${51820 + id}`, mode: 'forward', interface: `wgcp${id}`,
    address: `10.${id}.0.1/16`, address6: `fd77:0:${id.toString(16)}::1/64`, listenPort: 51820 + id, dns: `10.${id}.0.1`, mtu: null,
    privateKey: keys.privateKey, publicKey: keys.publicKey, createdAt: T, updatedAt: T, ...over,
  };
}

/** Peer n of a server gets the n-th host address after the server's own (.0.1). */
export function fixturePeer(id: number, server: ServerRecord, n: number, over: Partial<PeerRecord> = {}): PeerRecord {
  const base = ((10 << 24) | (server.id << 16)) >>> 0;
  const keys = generateKeyPair();
  return newPeerRecord({
    id, serverId: server.id, name: `p${id}`, ip: formatIpv4(base + 1 + n), ip6: `fd77:0:${server.id.toString(16)}::${(1 + n).toString(16)}`, publicKey: keys.publicKey,
    privateKey: keys.privateKey, presharedKey: generatePresharedKey(), enabled: true, disabledReasons: [], createdAt: T, updatedAt: T, ...over,
  });
}
