// The device API's token bucket: after a site's power comes back, a whole fleet asks at
// once. Requests past the bucket get 429 with a Retry-After, and the refused ones are given
// successive slots at the bucket's rate (not all the same second), so their retries arrive
// spread out instead of as a second herd. Pure apart from the injected clock.

export interface BucketLimit {
  /** Tokens added a second: the sustained rate of device requests served. */
  ratePerS: number;
  /** Tokens held at most: the burst served at once. */
  burst: number;
}

/** What a request costs (one each: an enrolment script is throttled like a fleet, no harder). */
export const DEVICE_REQUEST_COST = { heartbeat: 1, provision: 1 } as const;

/** The longest Retry-After handed out (the agents' own back-off takes over beyond it). */
export const MAX_RETRY_AFTER_S = 300;

export type Take = { ok: true } | { ok: false; retryAfterS: number };

export class RequestBucket {
  private tokens: number;
  private at: number;
  /** The end of the last slot promised to a refused request (ms). */
  private promisedUntil = 0;

  constructor(private readonly limit: () => BucketLimit, private readonly now: () => number) {
    this.tokens = limit().burst;
    this.at = now();
  }

  take(cost: number): Take {
    const { ratePerS, burst } = this.limit();
    const now = this.now();
    this.tokens = Math.min(burst, this.tokens + ((now - this.at) / 1000) * ratePerS);
    this.at = now;
    if (this.tokens >= cost) {
      this.tokens -= cost;
      return { ok: true };
    }
    this.promisedUntil = Math.max(this.promisedUntil, now) + (cost / ratePerS) * 1000;
    return { ok: false, retryAfterS: Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil((this.promisedUntil - now) / 1000))) };
  }
}

/**
 * The limit for a fleet: twice the steady rate of `devices` heartbeating every 30 s (the
 * contract's interval), at least `floorPerS`; the burst is what two seconds bring.
 */
export function fleetLimit(devices: number, floorPerS: number): BucketLimit {
  const ratePerS = Math.max(floorPerS, (2 * devices) / 30);
  return { ratePerS, burst: Math.ceil(2 * ratePerS) };
}
