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
  /** The standby pair (src/ha/pair.ts): this router's role and position, its partner. */
  ha?: { role: 'primary' | 'standby' | 'alone'; epoch: number; sequence: number; partnerConnected: boolean; behind: number };
}

const HA_ROLES = ['primary', 'standby', 'alone'] as const;
const haGauge = (name: string, help: string, value: (h: NonNullable<DaemonState['ha']>) => number): Family => ({
  name, type: 'gauge', labelNames: [], help,
  samples: (d: ScrapeData) => (d.daemon.ha ? [{ labels: {}, value: value(d.daemon.ha) }] : []),
});

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
  {
    name: 'wgcp_ha_role', type: 'gauge', labelNames: ['role'],
    help: '1 for the role this router has in its standby pair (primary, standby, or alone without a partner), 0 for the others.',
    samples: (d) => (d.daemon.ha ? HA_ROLES.map((role) => ({ labels: { role }, value: d.daemon.ha!.role === role ? 1 : 0 })) : []),
  },
  haGauge('wgcp_ha_epoch', 'The standby pair\'s epoch this router holds (raised by each promotion).', (h) => h.epoch),
  haGauge('wgcp_ha_sequence', 'The sequence of the last committed change this router holds.', (h) => h.sequence),
  haGauge('wgcp_ha_partner_connected', '1 while the partner follows this primary (or this standby follows it); 0 on a primary means degraded: changes are held by it alone.', (h) => (h.partnerConnected ? 1 : 0)),
  haGauge('wgcp_ha_behind', 'Changes the standby does not hold yet.', (h) => h.behind),
  ...(['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const).map(loopFamily),
];
