// Clocks for tests: a manual one that moves only when told, and a fast one that runs
// a scaled real time (so a 30 s interval passes in a fraction of a second).
import type { Clock } from '../../src/clock';

interface Timer { at: number; fn: () => void; id: number }

export class ManualClock implements Clock {
  private t = 1_800_000_000_000;
  private timers: Timer[] = [];
  private seq = 0;
  now(): number { return this.t; }
  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { at: this.t + ms, fn, id: ++this.seq };
    this.timers.push(timer);
    return timer.id;
  }
  clearTimeout(handle: unknown): void { this.timers = this.timers.filter((x) => x.id !== handle); }
  /** Delays of the timers now pending, from now. */
  pending(): number[] { return this.timers.map((x) => x.at - this.t).sort((a, b) => a - b); }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
  }
}

export class FastClock implements Clock {
  private readonly start = Date.now();
  constructor(private readonly factor: number) {}
  now(): number { return this.start + (Date.now() - this.start) * this.factor; }
  setTimeout(fn: () => void, ms: number): unknown { return setTimeout(fn, ms / this.factor); }
  clearTimeout(handle: unknown): void { clearTimeout(handle as NodeJS.Timeout); }
}

/** Waits (in real time) until `cond` holds, failing after `ms`. */
export async function until(cond: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
