// The schedules, on plain timers: usage collection every WGCP_USAGE_INTERVAL_S seconds (a
// one-second tick that runs when the interval has passed, so any interval is exact, not
// only divisors of a minute), and at each minute (second 0, local time) peer expiry and the
// monthly reset, which acts at the first minute of a new month. Each job's failure is
// logged and the next run tries again. (node-cron ran these before: its matching of every
// second through Intl.DateTimeFormat kept ICU's time-zone data and code in memory, about
// 10 MB of the daemon's RSS; bench/RESULTS.md.)
import type { App } from '../app';
import { expirePeers, resetIfNewMonth } from './calendar';
import { collectUsage, type UsageCycle } from './usage';
import { AUDIT_PRUNE_EVERY_MS, pruneAudit } from './audit-prune';
import { startAccessSchedules, type AccessScheduler } from './access-schedules';
import { ClockWatch } from './clock-watch';

export interface Jobs {
  /** Runs one usage cycle now (also what the interval runs); one already under way is joined. */
  collectNow(): Promise<UsageCycle | null>;
  /** The wall clock as the jobs trust it; the daemon puts it in app.services for /healthz. */
  clockWatch: ClockWatch;
  /** Stops the schedules after one last collection, so the traffic since the last cycle is kept. */
  stop(): Promise<void>;
}

/** Reads, a second apart, after a peer is switched on: a handshake shows within about 5 s. */
const BURST_READS = 6;

export interface JobHooks { afterUsage?(cycle: UsageCycle): void }

export function startJobs(app: App, hooks: JobHooks = {}): Jobs {
  const guard = async <T>(name: string, fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch (err) {
      app.log.error(`job ${name} failed`, { error: err instanceof Error ? err.message : String(err) });
      return null;
    }
  };
  // The minute's jobs run one after another and are awaited by stop(), like a usage cycle.
  let minuteJobs: Promise<unknown> = Promise.resolve();
  const calendar = (): void => {
    minuteJobs = minuteJobs.then(async () => {
      const at = clock.now();
      await guard('monthly reset', () => resetIfNewMonth(app, at));
      await guard('expiry', () => expirePeers(app, at));
      app.log.debug('calendar jobs ran', { at: at.toISOString(), clockJumpWaited: clock.pending() !== null });
    });
  };
  // A jump of the wall clock is waited out (clock-watch.ts); the calendar runs at once when
  // one is seen (on the clock before it) and when one is confirmed (on the new clock).
  const clock = new ClockWatch(() => app.now(), app.config.clockConfirmS * 1000, {
    jumped: (j) => {
      app.log.warn('the wall clock jumped: peer expiry and the monthly reset wait until it is confirmed', { offsetS: Math.round(j.offsetMs / 1000), trustedTime: j.seenAt, confirmAfterS: app.config.clockConfirmS });
      calendar();
    },
    undone: (j) => app.log.warn('the wall clock is back from its jump: nothing acted on it', { offsetS: Math.round(j.offsetMs / 1000) }),
    confirmed: (j) => {
      app.log.warn('the wall clock jump is confirmed: peer expiry and the monthly reset follow the wall clock again', { offsetS: Math.round(j.offsetMs / 1000) });
      calendar();
    },
  });
  // The counters are read without holding the event loop, so a cycle can still be under
  // way when the next tick comes: it is joined, never run twice at once.
  let running: Promise<UsageCycle | null> | null = null;
  const collectNow = (): Promise<UsageCycle | null> => {
    running ??= (async () => {
      try {
        await guard('monthly reset', () => resetIfNewMonth(app, clock.now()));
        const cycle = await collectUsage(app);
        hooks.afterUsage?.(cycle);
        return cycle;
      } catch (err) {
        app.log.error('job usage failed', { error: err instanceof Error ? err.message : String(err) });
        return null;
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const intervalMs = app.config.usageIntervalS * 1000;
  let lastRun = performance.now();
  const usageTick = setInterval(() => {
    clock.check();
    // Half a tick of slack so that a 1 s interval does not skip a beat on timer jitter.
    if (performance.now() - lastRun < intervalMs - 500) return;
    lastRun = performance.now();
    void collectNow();
  }, 1000);
  let minuteTick: NodeJS.Timeout;
  const atNextMinute = () => {
    // The timer follows the wall clock; the jobs read the app's (tests inject theirs).
    const now = new Date();
    minuteTick = setTimeout(() => {
      calendar();
      atNextMinute();
    }, 60_000 - (now.getSeconds() * 1000 + now.getMilliseconds()));
    minuteTick.unref();
  };
  atNextMinute();
  usageTick.unref();
  // A peer switched on (or added, or edited while on) handshakes within seconds: the next
  // cycle may be a minute away, so the counters are read each second for a few seconds,
  // and the page shows the handshake as wg does (the usage message follows each cycle).
  let burst: NodeJS.Timeout | undefined;
  let burstLeft = 0;
  const readSoon = (): void => {
    burstLeft = BURST_READS;
    if (burst) return;
    burst = setInterval(() => {
      if (--burstLeft <= 0) { clearInterval(burst); burst = undefined; }
      void collectNow();
    }, 1000);
    burst.unref();
  };
  const unsubscribe = app.events.onChange((n) => {
    if (n.kind === 'peer' && !n.gone && n.enabled) readSoon();
  });
  const auditTick = setInterval(() => guard('audit prune', () => pruneAudit(app)), AUDIT_PRUNE_EVERY_MS);
  auditTick.unref();

  // At start: a new month may have begun while the daemon was down, peers may have expired,
  // and counters are read at once so an interface restarted with the daemon loses little.
  minuteJobs = guard('expiry', () => expirePeers(app, clock.now()));
  void guard('audit prune', () => pruneAudit(app));
  void collectNow();
  // Access schedules: their state is recomputed now, then each boundary is met by its own timer.
  const access: Promise<AccessScheduler | null> = startAccessSchedules(app).catch((err: unknown) => {
    app.log.error('access schedules could not start', { error: err instanceof Error ? err.message : String(err) });
    return null;
  });

  let stopped = false;
  return {
    collectNow,
    clockWatch: clock,
    async stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      clearInterval(burst);
      clearInterval(usageTick);
      clearTimeout(minuteTick);
      clearInterval(auditTick);
      await (await access)?.stop();
      await running;
      await minuteJobs;
      await collectNow();
    },
  };
}
