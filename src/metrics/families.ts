// Every wgcp metric family: its name (Prometheus' conventions: base units, _total on
// counters), help, type, and how its samples come from one scrape's data. Pure: the text
// format is prom-client's (exposition.ts); here is only what each line says.
import { limitBytes } from '../peer-state';
import type { StoreSnapshot, ScrapedPeer } from './scrape-read';
import type { HistogramTally, MetricsTally } from './tally';
import { STATE_FAMILIES, type DaemonState } from './state-families';

export interface ScrapeData extends StoreSnapshot {
  /** Unix seconds at the scrape. */
  now: number;
  tally: MetricsTally;
  daemon: DaemonState;
}

export interface Sample {
  labels: Record<string, string>;
  value: number;
  metricName?: string;
  /** Labels prom-client formats once per object and scrape (a peer's, shared by its five series). */
  sharedLabels?: Record<string, string>;
}

export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  labelNames: readonly string[];
  samples(data: ScrapeData): Sample[];
}

/** Samples rendered between two turns of the event loop (a few milliseconds on a router). */
export const SLICE = 1000;

/** A peer counts as online when its last handshake is this recent (as in /api/servers/{id}/stats). */
export const ONLINE_WINDOW_S = 180;
const PEER_LABELS = ['server', 'peer', 'name'] as const;

// One label object a peer and scrape, shared by its five series: prom-client formats shared
// labels once per object, where it would format plain labels again on every line.
const NO_LABELS: Record<string, string> = Object.freeze({}) as Record<string, string>;
// A cache of per-object data, not a service: it lives as long as the scraped peer.
const peerLabels = new WeakMap<ScrapedPeer, Record<string, string>>();
function labelsOf(p: ScrapedPeer): Record<string, string> {
  let l = peerLabels.get(p);
  if (!l) { l = { server: String(p.serverId), peer: String(p.id), name: p.name }; peerLabels.set(p, l); }
  return l;
}

function perPeer(pick: (p: ScrapedPeer) => number | null) {
  return (d: ScrapeData): Sample[] => {
    const out: Sample[] = [];
    for (const p of d.peers) {
      const v = pick(p);
      if (v !== null) out.push({ labels: NO_LABELS, sharedLabels: labelsOf(p), value: v });
    }
    return out;
  };
}

export type PeerState = 'online' | 'offline' | 'disabled';

export function peerState(p: ScrapedPeer, now: number): PeerState {
  if (!p.enabled) return 'disabled';
  return p.latestHandshake > 0 && p.latestHandshake >= now - ONLINE_WINDOW_S ? 'online' : 'offline';
}

function peersByState(d: ScrapeData): Sample[] {
  const counts = new Map<number, Record<PeerState, number>>(d.serverIds.map((id) => [id, { online: 0, offline: 0, disabled: 0 }]));
  for (const p of d.peers) {
    const c = counts.get(p.serverId);
    if (c) c[peerState(p, d.now)]++;
  }
  const out: Sample[] = [];
  for (const [server, c] of counts) {
    for (const state of ['online', 'offline', 'disabled'] as const) out.push({ labels: { server: String(server), state }, value: c[state] });
  }
  return out;
}

/** A tallied histogram as Prometheus has it: cumulative buckets with `le`, then _sum and _count. */
export function histogramSamples(name: string, h: HistogramTally): Sample[] {
  const out: Sample[] = [];
  for (const s of h.all()) {
    let cumulative = 0;
    h.buckets.forEach((le, i) => {
      cumulative += s.counts[i];
      out.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: String(le) }, value: cumulative });
    });
    out.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
    out.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
    out.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
  }
  return out;
}

const labelled = (name: string, rows: [string, number][]): Sample[] => rows.map(([v, n]) => ({ labels: { [name]: v }, value: n }));

export const FAMILIES: readonly Family[] = [
  {
    name: 'wgcp_peer_receive_bytes_total', type: 'counter', labelNames: PEER_LABELS,
    help: 'Bytes the router received from the peer (its interface counter as the usage job last read it, 0 before the first read; starts again from 0 when the interface or peer is re-created).',
    samples: perPeer((p) => p.rxBytes ?? 0),
  },
  {
    name: 'wgcp_peer_transmit_bytes_total', type: 'counter', labelNames: PEER_LABELS,
    help: 'Bytes the router sent to the peer (its interface counter as the usage job last read it, 0 before the first read).',
    samples: perPeer((p) => p.txBytes ?? 0),
  },
  {
    name: 'wgcp_peer_latest_handshake_timestamp_seconds', type: 'gauge', labelNames: PEER_LABELS,
    help: 'Unix time of the peer\'s latest handshake; absent for a peer that never shook hands.',
    samples: perPeer((p) => (p.latestHandshake > 0 ? p.latestHandshake : null)),
  },
  {
    name: 'wgcp_peer_enabled', type: 'gauge', labelNames: PEER_LABELS,
    help: '1 when the peer is enabled, 0 when it is disabled (by an admin, its data limit, expiry or a suspended device).',
    samples: perPeer((p) => (p.enabled ? 1 : 0)),
  },
  {
    name: 'wgcp_peer_data_limit_bytes', type: 'gauge', labelNames: PEER_LABELS,
    help: 'The peer\'s monthly data limit in bytes; absent for a peer without a limit.',
    samples: perPeer((p) => (p.dataLimitGB > 0 ? limitBytes(p.dataLimitGB) : null)),
  },
  {
    name: 'wgcp_peer_download_limit_bps', type: 'gauge', labelNames: PEER_LABELS,
    help: 'The peer\'s download limit (what the router sends it) in bits per second; absent for a peer without one.',
    samples: perPeer((p) => (p.downloadLimitMbps !== null ? Math.round(p.downloadLimitMbps * 1e6) : null)),
  },
  {
    name: 'wgcp_peer_upload_limit_bps', type: 'gauge', labelNames: PEER_LABELS,
    help: 'The peer\'s upload limit (what it sends the router) in bits per second; absent for a peer without one.',
    samples: perPeer((p) => (p.uploadLimitMbps !== null ? Math.round(p.uploadLimitMbps * 1e6) : null)),
  },
  {
    name: 'wgcp_peers', type: 'gauge', labelNames: ['server', 'state'],
    help: `Peers by server and state: online (enabled, handshake in the last ${ONLINE_WINDOW_S} s), offline (enabled, no recent handshake), disabled.`,
    samples: peersByState,
  },
  {
    name: 'wgcp_devices', type: 'gauge', labelNames: ['status'],
    help: 'Provisioned devices by the status they last reported (suspended devices as suspended, silent ones as unknown).',
    samples: (d) => labelled('status', d.devicesByStatus),
  },
  {
    name: 'wgcp_device_heartbeats_total', type: 'counter', labelNames: ['result'],
    help: 'Device heartbeats answered, by result: ok, rejected (unknown or suspended device, bad request), error.',
    samples: (d) => d.tally.heartbeats.samples(),
  },
  {
    name: 'wgcp_device_provisions_total', type: 'counter', labelNames: ['result'],
    help: 'Device provisioning requests, by result: provisioned, rejected (bad, unknown, used or expired token), limited (too many failures from the address), error.',
    samples: (d) => d.tally.provisions.samples(),
  },
  {
    name: 'wgcp_kernel_apply_duration_seconds', type: 'histogram', labelNames: ['kind'],
    help: 'Time to apply one change to WireGuard and nftables, by kind: server, peer, forward, reconcile (start-up).',
    samples: (d) => histogramSamples('wgcp_kernel_apply_duration_seconds', d.tally.kernelApply),
  },
  {
    name: 'wgcp_kernel_apply_failures_total', type: 'counter', labelNames: ['kind'],
    help: 'Kernel applies that failed (the change was rolled back), by kind.',
    samples: (d) => d.tally.kernelFailures.samples(),
  },
  {
    name: 'wgcp_kernel_drift_repairs_total', type: 'counter', labelNames: ['kind'],
    help: 'Items of the kernel the reconciler found changed under wgcp and put right, by kind (peer, link, nft, ipv6).',
    samples: (d) => d.tally.driftRepairs.samples(),
  },
  {
    name: 'wgcp_kernel_drift_checks_total', type: 'counter', labelNames: ['kind'],
    help: 'Compares of the kernel with what wgcp holds, by kind (with drift or without).',
    samples: (d) => d.tally.driftChecks.samples(),
  },
  {
    name: 'wgcp_usage_cycle_duration_seconds', type: 'histogram', labelNames: [],
    help: 'Time of one usage cycle: read every interface\'s counters, store usage, record history, apply data limits.',
    samples: (d) => histogramSamples('wgcp_usage_cycle_duration_seconds', d.tally.usageCycle),
  },
  {
    name: 'wgcp_webhook_deliveries_total', type: 'counter', labelNames: ['result'],
    help: 'Webhook delivery attempts, by result: delivered, retrying, failed (gave up), test.',
    samples: (d) => labelled('result', d.webhookDeliveries),
  },
  {
    name: 'wgcp_outbox_pending', type: 'gauge', labelNames: [],
    help: 'Webhook deliveries waiting in the outbox.',
    samples: (d) => [{ labels: {}, value: d.outboxPending }],
  },
  {
    name: 'wgcp_http_requests_total', type: 'counter', labelNames: ['listener', 'method', 'route', 'status_class'],
    help: 'HTTP requests answered, by listener (api, device, metrics), method, route pattern (unmatched: no route) and status class (2xx...).',
    samples: (d) => d.tally.httpRequests.samples(),
  },
  ...STATE_FAMILIES,
];
