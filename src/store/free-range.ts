// The lowest free address of a range in O(log n), without reading every used address:
// everything from `first` up to `top` is known taken, except the addresses freed since
// (kept in a min-heap). The caller's taken() is the truth (an indexed lookup), so a stale
// hole or an address taken behind our back costs one more lookup, never a wrong answer.

export class FreeRange {
  private top: bigint;
  private readonly holes: bigint[] = [];

  constructor(readonly first: bigint, readonly last: bigint) { this.top = first; }

  /** The lowest address of the range for which taken() is false, or null when there is none. */
  lowest(taken: (n: bigint) => boolean): bigint | null {
    while (this.holes.length > 0) {
      if (!taken(this.holes[0])) return this.holes[0];
      this.pop();
    }
    // Each step moves `top` for good: filling the range costs one lookup an address in all.
    while (this.top <= this.last && taken(this.top)) this.top++;
    return this.top <= this.last ? this.top : null;
  }

  /** An address was given back; below `top` it is remembered, above it `top` will find it. */
  freed(n: bigint): void {
    if (n < this.first || n >= this.top) return;
    const h = this.holes;
    h.push(n);
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (h[parent] <= h[i]) break;
      [h[parent], h[i]] = [h[i], h[parent]];
      i = parent;
    }
  }

  /** Holes remembered (a measure of the memory this range holds). */
  get holeCount(): number { return this.holes.length; }

  private pop(): void {
    const h = this.holes;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l] < h[m]) m = l;
      if (r < h.length && h[r] < h[m]) m = r;
      if (m === i) break;
      [h[m], h[i]] = [h[i], h[m]];
      i = m;
    }
  }
}
