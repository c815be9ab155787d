// The kernel's steps, timed where they are taken: the change runner times each kernel
// change it applies (and the daemon its start-up sync) in wgcp_kernel_apply_duration_seconds
// by kind, and a rejection counts in wgcp_kernel_apply_failures_total before the change is
// given up. Explicit calls, no wrapper around the plane: the plane is the object it is.
import type { KernelTiming } from '../kernel/timing';
import type { MetricsTally } from './tally';

export function kernelTiming(tally: MetricsTally): KernelTiming {
  return {
    async time(kind, work) {
      const started = process.hrtime.bigint();
      try {
        return await work();
      } catch (err) {
        tally.kernelFailures.inc([kind]);
        throw err;
      } finally {
        tally.kernelApply.observe([kind], Number(process.hrtime.bigint() - started) / 1e9);
      }
    },
  };
}
