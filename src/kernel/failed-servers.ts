// Servers the kernel could not bring up (a port another program holds, a tool that fails):
// kept with their reason and retried with back-off, so one broken server never stops the
// daemon or the other servers.
export interface ServerFailure {
  serverId: number;
  interface: string;
  reason: string;
  since: string;
  attempts: number;
  nextRetryAt: string;
}

interface Entry extends ServerFailure { delayMs: number; timer: NodeJS.Timeout }

export const RETRY_FIRST_MS = 5_000;
export const RETRY_MAX_MS = 300_000;

export class FailedServers {
  private readonly entries = new Map<number, Entry>();

  /** `retry(id)` is called when a server's wait is over; it calls mark() again if it still fails. */
  constructor(private readonly retry: (serverId: number) => void, private readonly firstMs = RETRY_FIRST_MS, private readonly maxMs = RETRY_MAX_MS) {}

  has(serverId: number): boolean { return this.entries.has(serverId); }

  get(serverId: number): ServerFailure | undefined {
    const e = this.entries.get(serverId);
    return e && present(e);
  }

  list(): ServerFailure[] { return [...this.entries.values()].map(present); }

  /** Records a failure (again): the wait doubles from the first up to the longest. */
  mark(serverId: number, ifname: string, reason: string): void {
    const old = this.entries.get(serverId);
    if (old) clearTimeout(old.timer);
    const delayMs = old ? Math.min(old.delayMs * 2, this.maxMs) : this.firstMs;
    const timer = setTimeout(() => this.retry(serverId), delayMs);
    timer.unref();
    this.entries.set(serverId, {
      serverId, interface: ifname, reason, delayMs, timer,
      since: old?.since ?? new Date().toISOString(),
      attempts: (old?.attempts ?? 0) + 1,
      nextRetryAt: new Date(Date.now() + delayMs).toISOString(),
    });
  }

  clear(serverId: number): void {
    const e = this.entries.get(serverId);
    if (e) clearTimeout(e.timer);
    this.entries.delete(serverId);
  }

  close(): void {
    for (const e of this.entries.values()) clearTimeout(e.timer);
    this.entries.clear();
  }
}

function present(e: Entry): ServerFailure {
  return { serverId: e.serverId, interface: e.interface, reason: e.reason, since: e.since, attempts: e.attempts, nextRetryAt: e.nextRetryAt };
}
