// WGCP_TEST_CLOCK, for tests only: the path of a file holding a number of milliseconds that
// the daemon's clock (App.now) adds to the wall clock, read again at most every 100 ms, so a
// suite moves a real daemon's time (a clock jump, and back) without touching the machine's.
// Unset (always, outside tests): the wall clock as it is.
import fs from 'node:fs';

export function daemonClock(file: string | undefined): (() => Date) | undefined {
  if (!file) return undefined;
  let offsetMs = 0;
  let readAt = -Infinity;
  return () => {
    if (performance.now() - readAt > 100) {
      readAt = performance.now();
      try {
        const n = Number(fs.readFileSync(file, 'utf8').trim());
        offsetMs = Number.isFinite(n) ? n : 0;
      } catch {
        offsetMs = 0;
      }
    }
    return new Date(Date.now() + offsetMs);
  };
}
