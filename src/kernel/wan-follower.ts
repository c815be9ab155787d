// Keeps the table's sets of the router's side true: `wan_ifaces` (the operator's names, or
// the interfaces holding a default route: where port forwards apply) and `router_nets`
// (the router's own networks, net/router-nets.ts: "the LAN" of lanAccess and reachableFrom,
// and what the internet is not). Both are followed every 5 s, so a PPPoE redial, an uplink that moves
// or a LAN that comes up takes the filter along.
import type { Logger } from '../log';
import { diff } from '../nft/diff';
import { emptyElements, ifnameElement, isPrefix6, prefixElement, type PolicyElements } from '../nft/elements';
import { routerNets } from '../net/router-nets';
import { detectWanInterfaces } from './wan';

/** Two small /proc reads: cheap enough that a new LAN is judged as one within seconds. */
const WAN_REFRESH_MS = 5_000;

type RouterSide = Pick<PolicyElements, 'wan' | 'routerNets' | 'routerNets6'>;

export class WanFollower {
  private side: RouterSide = { wan: new Set(), routerNets: new Set(), routerNets6: new Set() };
  private timer: NodeJS.Timeout | null = null;

  /**
   * `configured`: the operator's WAN names, or null to follow the default routes; `tunnels`:
   * the interfaces whose routes are not the router's own; `apply` runs one nft batch.
   */
  constructor(private readonly log: Logger, private readonly configured: string[] | null, private readonly apply: (batch: string) => Promise<void>,
    private readonly tunnels: () => ReadonlySet<string> = () => new Set()) {}

  /** The sets' elements for a whole-table load, read now; starts following. */
  current(): RouterSide {
    this.side = this.read();
    if (!this.timer) {
      this.timer = setInterval(() => void this.follow(), WAN_REFRESH_MS);
      this.timer.unref();
    }
    return this.side;
  }

  /** The sets' elements as last applied (no detection). */
  held(): RouterSide { return this.side; }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private read(): RouterSide {
    const wan = this.configured ?? detectWanInterfaces();
    const nets = routerNets(this.tunnels(), new Set(wan));
    return {
      wan: new Set(wan.map(ifnameElement)),
      routerNets: new Set(nets.filter((n) => !isPrefix6(n)).map(prefixElement)),
      routerNets6: new Set(nets.filter(isPrefix6).map(prefixElement)),
    };
  }

  /** Puts the sets right now (a test's route change need not wait for the timer). */
  async follow(): Promise<void> {
    const next = this.read();
    const batch = diff({ ...emptyElements(), ...this.side }, { ...emptyElements(), ...next });
    if (batch === '') return;
    try {
      await this.apply(batch);
      const wanMoved = next.wan.size !== this.side.wan.size || [...next.wan].some((w) => !this.side.wan.has(w));
      this.side = next;
      if (wanMoved) this.log.info('WAN interfaces changed: port forwards follow', { wan: [...next.wan].join(',') || '(none)' });
      else this.log.info('the router\'s networks changed: the filter follows', { networks: [...next.routerNets, ...next.routerNets6].join(',') || '(none)' });
    } catch (err) {
      this.log.warn('could not follow the router\'s WAN interfaces and networks; tried again later', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
