// The HTB minors of one server's limited peers: the lowest free one, in constant time.
import { MAX_MINOR } from './render';

export class MinorPool {
  private next = 1;
  private readonly free: number[] = [];
  private readonly freed = new Set<number>();

  /** A free minor; `wanted` takes that one back (an undo), which must be free. */
  take(wanted?: number): number {
    if (wanted !== undefined) {
      if (this.freed.delete(wanted)) this.free.splice(this.free.lastIndexOf(wanted), 1);
      else if (wanted >= this.next) this.next = wanted + 1;
      return wanted;
    }
    while (this.free.length) {
      const m = this.free.pop()!;
      if (this.freed.delete(m)) return m;
    }
    if (this.next > MAX_MINOR) throw new Error(`a server shapes at most ${MAX_MINOR} peers`);
    return this.next++;
  }

  give(minor: number): void {
    if (this.freed.has(minor)) return;
    this.freed.add(minor);
    this.free.push(minor);
  }
}
