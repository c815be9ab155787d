// Counts failed provisioning attempts per source address in fixed windows. Once an address
// has `failures` failures in a window, its further failures are answered 429 until the
// window ends. Only failures count, and a success clears its address: many devices share
// one address behind a NAT, and one broken neighbour must not lock the others out.
// Memory is bounded: expired windows are dropped, and past `maxAddresses` the oldest go first.
export interface FailureLimit { failures: number; windowMs: number; maxAddresses?: number }

export const DEFAULT_PROVISION_LIMIT: FailureLimit = { failures: 30, windowMs: 5 * 60_000, maxAddresses: 100_000 };

interface Window { count: number; endsAt: number }

export class FailureLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly limit: FailureLimit, private readonly clock: () => number) {}

  /** Seconds until the address may try again, or 0 when it may try now. */
  blockedFor(address: string): number {
    const w = this.live(address);
    if (!w || w.count < this.limit.failures) return 0;
    return Math.max(1, Math.ceil((w.endsAt - this.clock()) / 1000));
  }

  recordFailure(address: string): void {
    const w = this.live(address);
    if (w) { w.count++; return; }
    this.prune();
    this.windows.set(address, { count: 1, endsAt: this.clock() + this.limit.windowMs });
  }

  /** A success proves the address is used by someone who holds a good token: its count starts over. */
  recordSuccess(address: string): void {
    this.windows.delete(address);
  }

  get size(): number { return this.windows.size; }

  private live(address: string): Window | undefined {
    const w = this.windows.get(address);
    if (w && w.endsAt <= this.clock()) {
      this.windows.delete(address);
      return undefined;
    }
    return w;
  }

  private prune(): void {
    const max = this.limit.maxAddresses ?? DEFAULT_PROVISION_LIMIT.maxAddresses!;
    if (this.windows.size < max) return;
    const now = this.clock();
    for (const [a, w] of this.windows) if (w.endsAt <= now) this.windows.delete(a);
    // Map keeps insertion order: the first entries are the oldest windows.
    for (const a of this.windows.keys()) {
      if (this.windows.size < max) break;
      this.windows.delete(a);
    }
  }
}

/**
 * The key an address is counted under: IPv4 as it is; IPv6 by its /64, since one host
 * usually holds a whole /64 and could otherwise rotate addresses past the limit.
 */
export function limiterKey(address: string): string {
  if (!address.includes(':')) return address;
  const plain = address.split('%')[0].toLowerCase();
  const [head, tail] = plain.includes('::') ? plain.split('::') : [plain, null];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  if (right.some((g) => g.includes('.')) || left.some((g) => g.includes('.'))) return plain;
  const groups = tail === null ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':') + '::/64';
}
