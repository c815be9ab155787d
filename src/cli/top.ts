// `wgcp top`: the busiest peers of the last hour, for an operator on SSH. Read from the traffic
// history in the database, so it shows the closed 5-minute buckets: the one being filled is in
// wgcpd's memory until it closes (at most 5 minutes behind).
import type { Store } from '../store/store';
import { HistoryTable } from '../history/table';
import { bucketStart, TIERS, unixSeconds } from '../history/tiers';
import { UsageError, stringOption, wantsJson, type Args } from './args';
import { renderTable } from './table';

export interface TopLine { peerId: number; name: string; server: string; rxBytes: number; txBytes: number }

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function humanBytes(n: number): string {
  let v = n;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
  return u === 0 ? `${n} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${UNITS[u]}`;
}

/** The busiest peers since `since` (Unix seconds), with their names and servers as they stand. */
export function topPeers(store: Store, since: number, limit: number): TopLine[] {
  return new HistoryTable(store.db).top(since, limit).map((row) => {
    const peer = store.peers.get(row.peerId);
    const server = peer ? store.servers.get(peer.serverId) : undefined;
    return {
      ...row,
      name: peer ? peer.name : '(deleted)',
      server: server ? `${server.name} (${server.id})` : '-',
    };
  });
}

/** The table as printed: pure, so the layout is tested apart from the database. */
export function renderTop(lines: readonly TopLine[], from: Date, to: Date): string {
  const hhmm = (d: Date) => d.toISOString().slice(11, 16);
  const head = `busiest peers ${hhmm(from)}-${hhmm(to)} UTC (received and sent by the router; the last 5 minutes are not in yet)\n`;
  if (lines.length === 0) return `${head}no traffic\n`;
  return head + renderTable(['PEER', 'NAME', 'SERVER', 'RECEIVED', 'SENT', 'TOTAL'],
    lines.map((l) => [l.peerId, l.name, l.server, humanBytes(l.rxBytes), humanBytes(l.txBytes), humanBytes(l.rxBytes + l.txBytes)]), [0, 3, 4, 5]);
}

export function runTopCommand(args: Args, store: Store, out: (s: string) => void, now = new Date()): void {
  const limitText = stringOption(args, 'limit') ?? '10';
  if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1) throw new UsageError('--limit must be a whole number from 1 to 9999');
  const json = wantsJson(args);
  const to = bucketStart(unixSeconds(now), TIERS[0].seconds);
  const from = to - 3600;
  const lines = topPeers(store, from, Number(limitText));
  out(json ? JSON.stringify({ from: new Date(from * 1000).toISOString(), to: new Date(to * 1000).toISOString(), peers: lines }, null, 2) + '\n'
    : renderTop(lines, new Date(from * 1000), new Date(to * 1000)));
}
