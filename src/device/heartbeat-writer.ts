// Heartbeat reports are written behind the answer: reports are queued and stored together
// in one transaction every FLUSH_MS (or once MAX_PENDING are queued), instead of one commit
// each. Readers that need them (the admin views) call flush() first, and the daemon flushes
// before it closes the store. A report is telemetry: at worst a crash loses FLUSH_MS of them,
// and a failed commit is logged while the next reports overwrite the same fields.
import type { Logger } from '../log';
import type { HeartbeatReport } from '../store/devices';
import type { Store } from '../store/store';

export const FLUSH_MS = 200;
export const MAX_PENDING = 5000;

export class HeartbeatWriter {
  private pending: { deviceId: string; report: HeartbeatReport }[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly store: Store, private readonly log: Logger) {}

  record(deviceId: string, report: HeartbeatReport): void {
    this.pending.push({ deviceId, report });
    if (this.pending.length >= MAX_PENDING) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      // Pending reports never keep the process alive; close() flushes them.
      this.timer.unref();
    }
  }

  get queued(): number { return this.pending.length; }

  flush(): void {
    if (this.timer !== null) { clearTimeout(this.timer); this.timer = null; }
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    if (!this.store.db.open) return;
    try {
      this.store.telemetryTx(() => { for (const { deviceId, report } of batch) this.store.devices.recordHeartbeat(deviceId, report); });
    } catch (err) {
      this.log.error('could not store heartbeat reports', { count: batch.length, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
