// A WireGuard client and an IPv6 internet host around the booted Debian router, both inside
// the container (network namespaces of its own, veth links): the client runs wireguard-go
// with the .conf the API hands out, so that a ping from it to the host crosses the tunnel
// and is forwarded by the router as a router owner's would be.
import fs from 'node:fs';
import path from 'node:path';
import { stripConf } from '../src/wg/conf';
import type { Container } from './packaging-container';

/** The router's address the client reaches (the server's endpoint). */
export const ENDPOINT_IP = '198.51.100.1';
/** The IPv6 internet host, beyond the router's uplink wan0 (its default route). */
export const INTERNET6 = '2001:db8:70::2';

const WORLD = `set -e
ip netns add cl
ip netns add wan
ip link add cl0 type veth peer name cl1 netns cl
ip address add ${ENDPOINT_IP}/24 dev cl0
ip link set cl0 up
ip -n cl address add 198.51.100.2/24 dev cl1
ip -n cl link set cl1 up
ip -n cl link set lo up
ip link add wan0 type veth peer name wan1 netns wan
ip address add 2001:db8:70::1/64 dev wan0 nodad
ip link set wan0 up
ip -n wan address add ${INTERNET6}/64 dev wan1 nodad
ip -n wan link set wan1 up
ip -n wan link set lo up
ip -6 route add default via ${INTERNET6} dev wan0
`;

/** Makes the client's and the internet host's namespaces, linked to the router. */
export async function buildWorld(box: Container): Promise<void> {
  await box.must(['sh', '-c', WORLD]);
}

/** Starts wireguard-go in the client namespace with `conf` (as GET /api/peers/{id}/config gives it). */
export async function clientUp(box: Container, conf: string): Promise<void> {
  const file = path.join(box.root, 'root', 'peer.conf');
  fs.writeFileSync(file, stripConf(conf), { mode: 0o600 });
  const addresses = /^Address = (.+)$/m.exec(conf)![1].split(',').map((x) => x.trim());
  await box.must(['sh', '-c', `set -e
ip netns exec cl wireguard-go wgc
ip netns exec cl wg setconf wgc /root/peer.conf
${addresses.map((a) => `ip -n cl address add ${a} dev wgc`).join('\n')}
ip -n cl link set wgc up
ip -n cl -6 route add default dev wgc
`]);
}

/** True once one ping from the client reaches the IPv6 internet host (the first waits for a handshake). */
export async function pingsInternet6(box: Container): Promise<boolean> {
  for (let i = 0; i < 5; i++) {
    if ((await box.run(['ip', 'netns', 'exec', 'cl', 'ping', '-6', '-c', '1', '-W', '2', INTERNET6])).code === 0) return true;
  }
  return false;
}
