// Heartbeat reports are written behind the answer, and sparingly: routers write to flash.
// Only each device's newest report is kept, and the kept ones are stored together in one
// transaction every flush interval (WGCP_HEARTBEAT_FLUSH_S, 300 s by default; or once
// MAX_PENDING devices wait), instead of one commit a heartbeat. Readers that need them (the
// admin views) call flush() first, and the daemon flushes before it closes the store. A
// report is telemetry: at worst a crash loses one interval of them, and a failed commit is
// logged while the next reports overwrite the same fields.
import type { Logger } from '../log';
import type { HeartbeatReport } from '../store/devices';
import type { Store } from '../store/store';

export const DEFAULT_FLUSH_MS = 300_000;
// Reports waiting are ~200 bytes each: 20,000 devices' newest ones are about 4 MB.
export const MAX_PENDING = 20_000;

/** A newer report keeps the fields it leaves out from the older one, as the store would. */
function mergeReports(older: HeartbeatReport, newer: HeartbeatReport): HeartbeatReport {
  return {
    ...newer,
    status: newer.status ?? older.status,
    state: newer.state ?? older.state,
    tunnelUp: newer.tunnelUp ?? older.tunnelUp,
    lastHandshake: newer.lastHandshake === undefined ? older.lastHandshake : newer.lastHandshake,
    intervalS: newer.intervalS ?? older.intervalS,
  };
}

export class HeartbeatWriter {
  private pending = new Map<string, HeartbeatReport>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly store: Store, private readonly log: Logger, private readonly flushMs = DEFAULT_FLUSH_MS) {}

  record(deviceId: string, report: HeartbeatReport): void {
    const older = this.pending.get(deviceId);
    this.pending.set(deviceId, older ? mergeReports(older, report) : report);
    if (this.pending.size >= MAX_PENDING) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), this.flushMs);
      // Pending reports never keep the process alive; close() flushes them.
      this.timer.unref();
    }
  }

  /** Devices whose newest report waits to be stored. */
  get queued(): number { return this.pending.size; }

  flush(): void {
    if (this.timer !== null) { clearTimeout(this.timer); this.timer = null; }
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    if (!this.store.db.open) return;
    try {
      this.store.telemetryTx(() => { for (const [deviceId, report] of batch) this.store.devices.recordHeartbeat(deviceId, report); });
    } catch (err) {
      this.log.error('could not store heartbeat reports', { count: batch.size, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
