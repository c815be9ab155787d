// Counts failed provisioning attempts per source address in fixed windows. Once an address
// has `failures` failures in a window, it is refused (429) until the window ends. Memory
// is bounded: expired windows are dropped, and past `maxAddresses` the oldest go first.
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
