// Families that say how the daemon itself stands: its kernel backend and failed servers (so
// one can alert on "changes stored but nothing applied"), and the event loop's delay (in place
// of prom-client's gauges of the same names, which read nonsense before their first sample).
import type { Family, ScrapeData } from './families';
import type { LoopDelayWindow } from './loop-delay';

export interface DaemonState {
  /** True when the kernel backend applies changes; false when it is off. */
  kernelOn: boolean;
  /** Servers the kernel could not bring up (retried). */
  failedServerIds: number[];
  /** Repairs of kernel drift that keep failing, by kind (every kind, 0 when none). */
  failingRepairs: Record<string, number>;
  loopDelay: LoopDelayWindow;
}

/** prom-client's default gauges these replace (exposition.ts removes them). */
export const REPLACED_DEFAULTS = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'].map((s) => `nodejs_eventloop_lag_${s}_seconds`);

const LOOP_HELP: Record<keyof LoopDelayWindow, string> = {
  min: 'The minimum', max: 'The maximum', mean: 'The mean', stddev: 'The standard deviation',
  p50: 'The 50th percentile', p90: 'The 90th percentile', p99: 'The 99th percentile',
};

const loopFamily = (stat: keyof LoopDelayWindow): Family => ({
  name: `nodejs_eventloop_lag_${stat}_seconds`, type: 'gauge', labelNames: [],
  help: `${LOOP_HELP[stat]} of the event loop delays sampled since the previous scrape (every 10 ms from the start; the previous figure when none was sampled).`,
  samples: (d: ScrapeData) => [{ labels: {}, value: d.daemon.loopDelay[stat] }],
});

export const STATE_FAMILIES: readonly Family[] = [
  {
    name: 'wgcp_kernel_backend_on', type: 'gauge', labelNames: [],
    help: '1 when the kernel backend applies changes to WireGuard and nftables; 0 when it is off (changes are stored, not applied; /healthz says why).',
    samples: (d) => [{ labels: {}, value: d.daemon.kernelOn ? 1 : 0 }],
  },
  {
    name: 'wgcp_server_failed', type: 'gauge', labelNames: ['server'],
    help: '1 while the kernel could not bring the server up (wgcpd retries; /healthz says why), else 0. Every server has a series.',
    samples: (d) => {
      const failed = new Set(d.daemon.failedServerIds);
      return d.serverIds.map((id) => ({ labels: { server: String(id) }, value: failed.has(id) ? 1 : 0 }));
    },
  },
  {
    name: 'wgcp_kernel_repair_failing', type: 'gauge', labelNames: ['kind'],
    help: 'Repairs of kernel drift of this kind that keep failing (retried with back-off up to 5 minutes; /healthz says why), else 0. Every kind has a series.',
    samples: (d) => Object.entries(d.daemon.failingRepairs).map(([kind, n]) => ({ labels: { kind }, value: n })),
  },
  ...(['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const).map(loopFamily),
];
