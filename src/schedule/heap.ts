// A binary min-heap of peers keyed by their next schedule boundary (ms), indexed by peer id
// so that a peer's entry is moved or removed in O(log n) when its schedule changes. The
// scheduler reads only its top: a minute without a due boundary touches nothing else.

export class BoundaryHeap {
  private readonly ids: number[] = [];
  private readonly at: number[] = [];
  private readonly slot = new Map<number, number>();

  get size(): number { return this.ids.length; }

  /** The earliest boundary, or null when the heap is empty. */
  peekAt(): number | null { return this.ids.length ? this.at[0] : null; }

  /** The boundary kept for a peer, if any. */
  get(id: number): number | undefined {
    const i = this.slot.get(id);
    return i === undefined ? undefined : this.at[i];
  }

  /** Puts a peer's boundary in, or moves it. */
  set(id: number, at: number): void {
    const i = this.slot.get(id);
    if (i === undefined) {
      this.ids.push(id);
      this.at.push(at);
      this.slot.set(id, this.ids.length - 1);
      this.up(this.ids.length - 1);
      return;
    }
    const was = this.at[i];
    this.at[i] = at;
    if (at < was) this.up(i); else this.down(i);
  }

  delete(id: number): boolean {
    const i = this.slot.get(id);
    if (i === undefined) return false;
    const last = this.ids.length - 1;
    this.swap(i, last);
    this.ids.pop();
    this.at.pop();
    this.slot.delete(id);
    if (i < this.ids.length) { this.up(i); this.down(i); }
    return true;
  }

  /** Takes out every peer whose boundary is at or before `now`, earliest first. */
  popDue(now: number): number[] {
    const out: number[] = [];
    while (this.ids.length && this.at[0] <= now) {
      const id = this.ids[0];
      out.push(id);
      this.delete(id);
    }
    return out;
  }

  clear(): void {
    this.ids.length = 0;
    this.at.length = 0;
    this.slot.clear();
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.at[parent] <= this.at[i]) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.ids.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.at[l] < this.at[m]) m = l;
      if (r < n && this.at[r] < this.at[m]) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(i: number, j: number): void {
    if (i === j) return;
    [this.ids[i], this.ids[j]] = [this.ids[j], this.ids[i]];
    [this.at[i], this.at[j]] = [this.at[j], this.at[i]];
    this.slot.set(this.ids[i], i);
    this.slot.set(this.ids[j], j);
  }
}
