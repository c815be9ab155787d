// The wall clock as the calendar jobs may act on it. A wall clock that moves far from the
// monotonic clock (a bad NTP answer, an RTC-less router setting its time, a hand) is a jump:
// logged and waited out, not taken as time that passed. Until it is confirmed, peer expiry
// and the monthly reset run on the clock as it was before the jump, carried on by the
// monotonic clock; a jump undone within the wait changes nothing. A jump is confirmed when
// the wall clock has kept step with the monotonic clock (no new jump) for WGCP_CLOCK_CONFIRM_S
// seconds: from then on the jobs follow the wall clock again (docs/events.md).
import type { App } from '../app';

/** A difference between the two clocks larger than this is a jump; NTP's slews and small steps stay below it. */
export const JUMP_MS = 5 * 60_000;

export interface ClockJump {
  /** The wall clock's lead over the trusted clock when the jump was seen (negative: behind), ms. */
  offsetMs: number;
  /** When it was seen, on the trusted clock. */
  seenAt: string;
  /** The monotonic time it was seen at. */
  seenMono: number;
}

export interface ClockEvents {
  jumped(j: ClockJump): void;
  undone(j: ClockJump): void;
  confirmed(j: ClockJump): void;
}

export class ClockWatch {
  /** The trusted clock: the wall time `anchorWall` at monotonic `anchorMono`, running at the monotonic clock's pace. */
  private anchorWall: number;
  private anchorMono: number;
  private jump: ClockJump | null = null;
  /** The new timeline under test: the wall time at the jump, at its monotonic time. */
  private newWall = 0;

  constructor(private readonly wall: () => Date, private readonly confirmMs: number, private readonly on: ClockEvents,
    private readonly mono: () => number = () => performance.now()) {
    this.anchorWall = wall().getTime();
    this.anchorMono = mono();
  }

  /** The jump waited out now, or null. */
  pending(): ClockJump | null { return this.jump; }

  /** Compares the clocks; says when a jump is seen, undone or confirmed. Cheap: called every second. */
  check(): void {
    const w = this.wall().getTime();
    const m = this.mono();
    const trusted = this.anchorWall + (m - this.anchorMono);
    if (!this.jump) {
      if (Math.abs(w - trusted) <= JUMP_MS) return this.follow(w, m);
      this.jump = { offsetMs: w - trusted, seenAt: new Date(trusted).toISOString(), seenMono: m };
      this.newWall = w;
      this.on.jumped(this.jump);
      return;
    }
    const j = this.jump;
    if (Math.abs(w - trusted) <= JUMP_MS) {
      this.jump = null;
      this.follow(w, m);
      this.on.undone(j);
      return;
    }
    // Another jump while waiting: the wait starts again from it.
    const expected = this.newWall + (m - j.seenMono);
    if (Math.abs(w - expected) > JUMP_MS) {
      this.jump = { offsetMs: w - trusted, seenAt: new Date(trusted).toISOString(), seenMono: m };
      this.newWall = w;
      this.on.jumped(this.jump);
      return;
    }
    if (m - j.seenMono >= this.confirmMs) {
      this.jump = null;
      this.follow(w, m);
      this.on.confirmed(j);
    }
  }

  /** The time peer expiry and the monthly reset act on: the wall clock, or the trusted one while a jump is waited out. */
  now(): Date {
    this.check();
    return this.jump ? new Date(this.anchorWall + (this.mono() - this.anchorMono)) : this.wall();
  }

  private follow(w: number, m: number): void {
    this.anchorWall = w;
    this.anchorMono = m;
  }
}

/** /healthz's reason while a jump is waited out, or none. */
export function clockReasons(app: App): string[] {
  const j = app.services.clockWatch?.pending();
  if (!j) return [];
  const h = Math.round(j.offsetMs / 3_600_000 * 10) / 10;
  return [`the wall clock jumped ${h >= 0 ? '+' : ''}${h} h at ${j.seenAt}: peer expiry and the monthly reset wait until it is confirmed`];
}
