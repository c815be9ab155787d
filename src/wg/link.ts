// A server's interface as `ip` and `wg` see it: address, MTU, up, listen port and key.
// The WireGuard device itself is made by a LinkDriver (kernel module or wireguard-go).
import fs from 'node:fs';
import { run, SECRET_FILE } from '../exec/command';
import { formatIpv6, parseIpv6 } from '../net/ipv6';
import { deleteOwnLink, markOwnLink } from './link-owner';
import { isInterfaceName } from './interface-name';
import type { KernelPeer } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { renderInterfaceConf } from './uapi-conf';

export const DEFAULT_MTU = 1420;

/** Makes and removes the WireGuard device of an interface name. */
export interface LinkDriver {
  readonly kind: 'kernel' | 'wireguard-go';
  create(ifname: string): Promise<void>;
  remove(ifname: string): Promise<void>;
  close(): Promise<void>;
}

/** Interface names reach `ip` and `wg` as arguments: refuse any a tool could read as an option or a path. */
export function checkIfname(name: string): string {
  if (!isInterfaceName(name)) throw new Error(`interface name ${JSON.stringify(name)} cannot be used`);
  return name;
}

export const mtuOf = (server: Pick<ServerRecord, 'mtu'>): number => server.mtu ?? DEFAULT_MTU;

/**
 * The IPv4 addresses (address/prefix) an interface holds, read from the text of `ip address
 * show`: iproute2 and BusyBox's `ip` applet (OpenWrt's stock `ip`, which has no `-j`) both
 * print one `inet A.B.C.D/N ...` line an address.
 */
export async function ipv4Addresses(ifname: string): Promise<string[]> {
  const text = await run('ip', ['address', 'show', 'dev', checkIfname(ifname)]);
  return [...text.matchAll(/^\s+inet (\d{1,3}(?:\.\d{1,3}){3}\/\d{1,2})\s/gm)].map((m) => m[1]);
}

/** The global IPv6 addresses (RFC 5952 address/prefix) an interface holds; link-local ones are the kernel's. */
export async function ipv6Addresses(ifname: string): Promise<string[]> {
  const text = await run('ip', ['address', 'show', 'dev', checkIfname(ifname)]);
  return [...text.matchAll(/^\s+inet6 ([0-9a-fA-F:]+)\/(\d{1,3}) scope global/gm)].map((m) => `${formatIpv6(parseIpv6(m[1])!)}/${m[2]}`);
}

/** True where the kernel runs IPv6 (a router may be built or set without it). */
export const ipv6Usable = (): boolean => fs.existsSync('/proc/net/if_inet6');

/** The addresses the server's interface should hold: its IPv4 one and, where IPv6 runs, its IPv6 one. */
export function wantedAddresses(server: Pick<ServerRecord, 'address' | 'address6'>, withIpv6: boolean): string[] {
  return server.address6 !== null && withIpv6 ? [server.address, server.address6] : [server.address];
}

/** Sets the tunnel addresses (only those), the MTU and brings the link up. */
export async function configureLink(server: ServerRecord): Promise<void> {
  checkIfname(server.interface);
  const wanted = wantedAddresses(server, ipv6Usable());
  // Left alone when already right: a restart must not blip the routes of a kept kernel interface.
  const held = [...await ipv4Addresses(server.interface), ...(wanted.length > 1 ? await ipv6Addresses(server.interface) : [])];
  if (held.length !== wanted.length || wanted.some((a) => !held.includes(a))) {
    await run('ip', ['address', 'flush', 'dev', server.interface]);
    for (const a of wanted) await run('ip', ['address', 'add', a, 'dev', server.interface]);
  }
  await run('ip', ['link', 'set', 'dev', server.interface, 'mtu', String(mtuOf(server)), 'up']);
}

/** Moves the IPv6 address of an interface (either side may be none). */
export async function replaceAddress6(ifname: string, from: string | null, to: string | null): Promise<void> {
  if (!ipv6Usable()) return;
  if (to !== null) await run('ip', ['address', 'add', to, 'dev', ifname]);
  if (from !== null) await run('ip', ['address', 'del', from, 'dev', ifname]);
}

export async function replaceAddress(ifname: string, from: string, to: string): Promise<void> {
  await run('ip', ['address', 'add', to, 'dev', ifname]);
  await run('ip', ['address', 'del', from, 'dev', ifname]);
}

export async function setMtu(ifname: string, mtu: number): Promise<void> {
  await run('ip', ['link', 'set', 'dev', ifname, 'mtu', String(mtu)]);
}

export async function setListenPort(ifname: string, port: number): Promise<void> {
  await run('wg', ['set', ifname, 'listen-port', String(port)]);
}

/** Makes the interface hold exactly this key, port and these peers (`wg syncconf`; the config holds keys). */
export async function syncPeers(server: ServerRecord, peers: Iterable<KernelPeer>): Promise<void> {
  // A whole interface (10,000 peers: about 2 s on wireguard-go) is a bring-up, not one change.
  await run('wg', ['syncconf', server.interface, SECRET_FILE], { secret: renderInterfaceConf(server, peers), timeoutMs: 60_000 });
}

/**
 * `wg show <if> dump`, without holding the event loop (wireguard-go takes about 150 ms at
 * 10,000 peers). It holds keys, so it is parsed and dropped, never logged.
 */
export function dumpInterface(ifname: string, timeoutMs?: number): Promise<string> {
  return run('wg', ['show', checkIfname(ifname), 'dump'], { timeoutMs });
}

export const kernelDriver: LinkDriver = {
  kind: 'kernel',
  async create(ifname) {
    await run('ip', ['link', 'add', 'dev', checkIfname(ifname), 'type', 'wireguard']);
    try {
      await markOwnLink(ifname);
    } catch (err) {
      // Made a moment ago by this call, so it is ours to take back even unmarked.
      await run('ip', ['link', 'del', 'dev', ifname]);
      throw err;
    }
  },
  remove: deleteOwnLink,
  async close() {},
};
