// How the kernel's steps are timed: the change runner times each kernel change it applies,
// and the daemon its start-up sync, through this (src/metrics/kernel-timing.ts counts them).

export type ApplyKind = 'server' | 'peer' | 'forward' | 'reconcile' | 'sync';

export interface KernelTiming {
  /** Runs `work`, observing its duration under `kind` and counting its failure. */
  time<T>(kind: ApplyKind, work: () => Promise<T>): Promise<T>;
}

/** No timing (the CLI, benches and suites that build a runner of their own). */
export const UNTIMED: KernelTiming = { time: (_kind, work) => work() };
