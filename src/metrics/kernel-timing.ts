// The kernel seam, timed: each apply (and the start-up reconcile) is observed in
// wgcp_kernel_apply_duration_seconds by kind, and a rejection counts in
// wgcp_kernel_apply_failures_total before the change runner gives the change up.
// A Proxy rather than a class, so that whatever else the seam offers (now or later) passes
// straight through to the backend, called on the backend itself.
import type { KernelPlane } from '../kernel/plane';
import type { MetricsTally } from './tally';

export type ApplyKind = 'server' | 'peer' | 'forward' | 'reconcile';

const TIMED: Partial<Record<keyof KernelPlane, ApplyKind>> = {
  reconcile: 'reconcile', applyServer: 'server', applyPeer: 'peer', applyPeers: 'peer', applyForward: 'forward',
};

export function timedKernel(inner: KernelPlane, tally: MetricsTally): KernelPlane {
  const timed = (kind: ApplyKind, fn: (...args: unknown[]) => Promise<unknown>) => async (...args: unknown[]) => {
    const started = process.hrtime.bigint();
    try {
      return await fn.apply(inner, args);
    } catch (err) {
      tally.kernelFailures.inc([kind]);
      throw err;
    } finally {
      tally.kernelApply.observe([kind], Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
  return new Proxy(inner, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      const kind = TIMED[prop as keyof KernelPlane];
      return kind ? timed(kind, value as (...args: unknown[]) => Promise<unknown>) : (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}
