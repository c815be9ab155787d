// Keeps the table's `wan_ifaces` set on the router's WAN side: the operator's names, or the
// interfaces holding a default route, followed every 30 s so a PPPoE redial or an uplink
// that moves takes the port forwards along.
import type { Logger } from '../log';
import { diff } from '../nft/diff';
import { emptyElements, ifnameElement } from '../nft/elements';
import { detectWanInterfaces } from './wan';

const WAN_REFRESH_MS = 30_000;

export class WanFollower {
  private wan = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  /** `configured`: the operator's WAN names, or null to follow the default routes; `apply` runs one nft batch. */
  constructor(private readonly log: Logger, private readonly configured: string[] | null, private readonly apply: (batch: string) => Promise<void>) {}

  /** The set's elements for a whole-table load; starts following when not configured. */
  current(): Set<string> {
    this.wan = new Set((this.configured ?? detectWanInterfaces()).map(ifnameElement));
    if (this.configured === null && !this.timer) {
      this.timer = setInterval(() => void this.follow(), WAN_REFRESH_MS);
      this.timer.unref();
    }
    return this.wan;
  }

  /** The set's elements as last applied (no detection). */
  held(): ReadonlySet<string> { return this.wan; }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async follow(): Promise<void> {
    const next = new Set(detectWanInterfaces().map(ifnameElement));
    if (next.size === this.wan.size && [...next].every((w) => this.wan.has(w))) return;
    try {
      await this.apply(diff({ ...emptyElements(), wan: this.wan }, { ...emptyElements(), wan: next }));
      this.wan = next;
      this.log.info('WAN interfaces changed: port forwards follow', { wan: [...next].join(',') || '(none)' });
    } catch (err) {
      this.log.warn('could not follow the WAN interfaces; tried again later', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
