// The device API's token buckets. After a site's power comes back, a whole fleet asks at
// once: requests past a bucket get 429 with a Retry-After, and the refused ones are given
// successive slots at the bucket's rate (not all the same second), so their retries arrive
// spread out instead of as a second herd. The fleet's bucket is one; sources and devices
// each have their own (KeyedBuckets), so that one client cannot spend the others' share
// (src/device/admission.ts says which request draws which). Pure apart from the injected clock.

export interface BucketLimit {
  /** Tokens added a second: the sustained rate of device requests served. */
  ratePerS: number;
  /** Tokens held at most: the burst served at once. */
  burst: number;
}

/** The longest Retry-After handed out (the agents' own back-off takes over beyond it). */
export const MAX_RETRY_AFTER_S = 300;

export type Take = { ok: true } | { ok: false; retryAfterS: number };

interface State {
  tokens: number;
  at: number;
  /** The end of the last slot promised to a refused request (ms). */
  promisedUntil: number;
}

function takeFrom(s: State, { ratePerS, burst }: BucketLimit, now: number, cost: number): Take {
  s.tokens = Math.min(burst, s.tokens + ((now - s.at) / 1000) * ratePerS);
  s.at = now;
  if (s.tokens >= cost) {
    s.tokens -= cost;
    return { ok: true };
  }
  s.promisedUntil = Math.max(s.promisedUntil, now) + (cost / ratePerS) * 1000;
  return { ok: false, retryAfterS: Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil((s.promisedUntil - now) / 1000))) };
}

export class RequestBucket {
  private readonly state: State;

  constructor(private readonly limit: () => BucketLimit, private readonly now: () => number) {
    this.state = { tokens: limit().burst, at: now(), promisedUntil: 0 };
  }

  take(cost: number): Take {
    return takeFrom(this.state, this.limit(), this.now(), cost);
  }
}

/**
 * One bucket a key (a source address, a device id), each starting full. At most `maxKeys`
 * are kept: past it the least recently used goes (it comes back full, as a new key would).
 */
export class KeyedBuckets {
  private readonly states = new Map<string, State>();

  constructor(private readonly limit: () => BucketLimit, private readonly now: () => number, private readonly maxKeys: number) {}

  take(key: string, cost: number): Take {
    const limit = this.limit();
    const now = this.now();
    let s = this.states.get(key);
    // Map keeps insertion order: taken out and put back, a key moves to the newest end.
    if (s) this.states.delete(key);
    else {
      if (this.states.size >= this.maxKeys) this.states.delete(this.states.keys().next().value as string);
      s = { tokens: limit.burst, at: now, promisedUntil: 0 };
    }
    this.states.set(key, s);
    return takeFrom(s, limit, now, cost);
  }

  get size(): number { return this.states.size; }
}

/**
 * The limit for a fleet: twice the steady rate of `devices` heartbeating every 30 s (the
 * contract's interval), at least `floorPerS`; the burst is what two seconds bring.
 */
export function fleetLimit(devices: number, floorPerS: number): BucketLimit {
  const ratePerS = Math.max(floorPerS, (2 * devices) / 30);
  return { ratePerS, burst: Math.ceil(2 * ratePerS) };
}
