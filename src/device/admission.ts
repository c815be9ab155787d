// Which device request draws which bucket, in one place. Every device request first draws
// from its source's bucket, before its body is read: what one address sends past that is
// refused before it costs anything. Only a request that passed the cheap checks (the body's
// shape, then a known and unsuspended device, or an unspent token) draws from its
// device's bucket and then the fleet's. So a flood of bad heartbeats from one address
// spends that address's bucket alone, never the fleet's: devices elsewhere are not made to
// wait. And one device (a looping agent, or a device_id that leaked) cannot spend more
// than its own share of the fleet's bucket. WGCP_DEVICE_RATE=0 turns all three off.
import createError from 'http-errors';
import { limiterKey } from './failure-limiter';
import { KeyedBuckets, type BucketLimit, type RequestBucket, type Take } from './request-bucket';

/** A device's own share: at the contract's 30 s interval a device uses a thirtieth of it. */
export const DEVICE_LIMIT: BucketLimit = { ratePerS: 1, burst: 10 };
/** Sources and devices tracked at most (least recently seen dropped first). */
export const MAX_TRACKED = 100_000;

/**
 * A source's limit, from the fleet's: twice it. A whole fleet may sit behind one NAT, so a
 * source must never be tighter than the fleet's bucket (which spreads a herd's retries).
 */
export const sourceLimit = (fleet: BucketLimit): BucketLimit => ({ ratePerS: 2 * fleet.ratePerS, burst: 2 * fleet.burst });

function refuse(t: Take): void {
  if (!t.ok) throw createError(429, 'too many device requests; try again later', { headers: { 'Retry-After': String(t.retryAfterS) } });
}

export class DeviceAdmission {
  private readonly sources: KeyedBuckets | null;
  private readonly devices: KeyedBuckets | null;

  /** fleet: the fleet's bucket and its limit, or null when WGCP_DEVICE_RATE=0 (no limits at all). */
  constructor(private readonly fleet: { bucket: RequestBucket; limit: () => BucketLimit } | null, now: () => number) {
    this.sources = fleet && new KeyedBuckets(() => sourceLimit(fleet.limit()), now, MAX_TRACKED);
    this.devices = fleet && new KeyedBuckets(() => DEVICE_LIMIT, now, MAX_TRACKED);
  }

  /** Before anything else: the source's bucket (an IPv6 address counted by its /64). Throws 429. */
  fromSource(address: string): void {
    if (this.sources) refuse(this.sources.take(limiterKey(address), 1));
  }

  /** After the cheap checks: the device's own bucket (null for a provisioning), then the fleet's. Throws 429. */
  passedChecks(deviceId: string | null): void {
    if (!this.fleet) return;
    if (deviceId !== null) refuse(this.devices!.take(deviceId, 1));
    refuse(this.fleet.bucket.take(1));
  }
}
