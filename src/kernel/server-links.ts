// A server's interface as the live plane makes and removes it: the device (kernel module or
// wireguard-go), its peers and addresses, and the bandwidth limits beside it (src/shaping/),
// which a new device never holds. Never takes or removes a link wgcp did not make.
import type { Logger } from '../log';
import type { Shaper } from '../shaping/shaper';
import { namesOf } from '../shaping/render';
import { forwardIpv6 } from '../wg/ipv6-forwarding';
import { configureLink, syncPeers, type LinkDriver } from '../wg/link';
import { addRoutes } from '../wg/peer-routes';
import { networksOf } from '../wg/uapi-conf';
import { foreignLinkError, isForeignLink, linkInfo } from '../wg/link-owner';
import type { ServerModel } from './model';
import type { ServerState } from './plane';

export class ServerLinks {
  constructor(private readonly log: Logger, private readonly driver: LinkDriver, private readonly shaper: Shaper) {}

  /** The links the servers hold: each interface and its shaping's IFB (bringing the server up makes it again). */
  wanted(states: ServerState[]): Set<string> {
    const names = new Set(states.map((s) => s.server.interface));
    for (const s of states) names.add(namesOf(s.server.interface).ifb);
    return names;
  }

  /**
   * Makes the device if missing, then key, port, peers, address, MTU and up. `remade`: the
   * device was just made again empty by its supervisor (a wireguard-go restart): used as it
   * is, and its limits waited for (a restored interface is said restored once they hold).
   */
  async bringUp(m: ServerModel, reuse: boolean, remade = false): Promise<void> {
    const { server } = m;
    const existing = linkInfo(server.interface);
    if (existing && !existing.ours) throw foreignLinkError(server.interface);
    const usable = remade ? existing : reuse && existing && (this.driver.kind === 'kernel' ? existing.kind === 'wireguard' : false);
    if (!usable) {
      if (existing) await this.remove(server.interface);
      await this.driver.create(server.interface);
    }
    // Peers first, then up: wireguard-go takes 10,000 peers a third faster on a link that is down.
    await syncPeers(server, m.peers.values());
    await configureLink(server);
    await addRoutes(server.interface, [...m.peers.values()].flatMap(networksOf));
    forwardIpv6(server, this.log);
    // A new device holds no classes: the server's limits are made again with it. Not waited
    // for (10,000 limited peers take tens of seconds): a change of the server's peers waits.
    const limits = this.shaper.install(server.interface, m.peers.values());
    if (remade) await limits; else void limits;
  }

  /** A new interface that is removed again if any part of bringing it up fails. */
  async bringUpNew(m: ServerModel): Promise<void> {
    try {
      await this.bringUp(m, false);
    } catch (err) {
      await this.removeLeftover(m.server.interface);
      throw err;
    }
  }

  /** Removes a server's interface, and its shaping with it. */
  async remove(ifname: string): Promise<void> {
    await this.driver.remove(ifname);
    await this.shaper.remove(ifname);
  }

  /** Removes what a failed bring-up may have left; a link that never existed is no error. */
  async removeLeftover(ifname: string): Promise<void> {
    try { if (!isForeignLink(ifname)) await this.remove(ifname); } catch { /* nothing was made */ }
  }
}
