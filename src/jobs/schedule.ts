// The node-cron schedules: usage collection every WGCP_USAGE_INTERVAL_S seconds (a
// one-second tick that runs when the interval has passed, so any interval is exact, not
// only divisors of a minute), the monthly reset at 00:00 on the 1st (local time) and
// expiry every minute. Each job's failure is logged and the next run tries again.
import cron, { type ScheduledTask } from 'node-cron';
import type { App } from '../app';
import { expirePeers, resetIfNewMonth } from './calendar';
import { runUsageCycle, type UsageCycle } from './usage';

export interface Jobs {
  /** Runs one usage cycle now (also what the interval runs). */
  collectNow(): UsageCycle | null;
  /** Stops the schedules after one last collection, so the traffic since the last cycle is kept. */
  stop(): Promise<void>;
}

export interface JobHooks { afterUsage?(cycle: UsageCycle): void }

export function startJobs(app: App, hooks: JobHooks = {}): Jobs {
  const guard = <T>(name: string, fn: () => T): T | null => {
    try {
      return fn();
    } catch (err) {
      app.log.error(`job ${name} failed`, { error: err instanceof Error ? err.message : String(err) });
      return null;
    }
  };
  const collectNow = (): UsageCycle | null => guard('usage', () => {
    resetIfNewMonth(app);
    const cycle = runUsageCycle(app);
    hooks.afterUsage?.(cycle);
    return cycle;
  });

  const intervalMs = app.config.usageIntervalS * 1000;
  let lastRun = performance.now();
  // node-cron's own messages go to our JSON log, never raw to stdout.
  const cronLog = {
    info: (m: string) => app.log.debug(`node-cron: ${m}`),
    warn: (m: string) => app.log.debug(`node-cron: ${m}`),
    error: (m: string | Error) => app.log.error(`node-cron: ${m instanceof Error ? m.message : m}`),
    debug: (m: string | Error) => app.log.debug(`node-cron: ${m instanceof Error ? m.message : m}`),
  };
  const options = { noOverlap: true, suppressMissedWarning: true, logger: cronLog };
  const tasks: ScheduledTask[] = [
    cron.schedule('* * * * * *', () => {
      // Half a tick of slack so that a 1 s interval does not skip a beat on timer jitter.
      if (performance.now() - lastRun < intervalMs - 500) return;
      lastRun = performance.now();
      collectNow();
    }, { ...options, name: 'wgcp-usage' }),
    cron.schedule('0 0 0 1 * *', () => { guard('monthly reset', () => resetIfNewMonth(app)); }, { ...options, name: 'wgcp-month' }),
    cron.schedule('0 * * * * *', () => { guard('expiry', () => expirePeers(app)); }, { ...options, name: 'wgcp-expiry' }),
  ];

  // At start: a new month may have begun while the daemon was down, peers may have expired,
  // and counters are read at once so an interface restarted with the daemon loses little.
  guard('expiry', () => expirePeers(app));
  collectNow();

  let stopped = false;
  return {
    collectNow,
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const t of tasks) await t.destroy();
      collectNow();
    },
  };
}
