// Simulated devices speaking the device API: provisioned through registration tokens, then
// each heartbeating every interval with ±10 % jitter (their first beats spread over one
// interval, as devices that booted at different times), each beat timed and its status kept.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { decryptPayload, deviceKey } from '../src/device/payload-crypto';
import { SALT } from './scale-daemon';
import { Samples, type Client } from './scale-http';

/** A heartbeat not answered within this, retries included, is lost. */
export const LOST_AFTER_MS = 30_000;

export class HeartbeatFleet {
  readonly ids: string[] = [];
  readonly beats = new Samples();
  failures = 0;
  /** Answers by status code (a 5xx or a network failure is a lost heartbeat). */
  readonly statuses = new Map<number, number>();
  /** Attempts that got no answer, by the error's code (ECONNREFUSED while a cut lasts, …). */
  readonly networkErrors = new Map<string, number>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private timers = new Set<NodeJS.Timeout>();
  private inFlight = new Set<Promise<void>>();
  private beating = false;

  constructor(private port: number, private readonly client: Client, readonly serverId: number, private readonly salt = SALT, private readonly host = '127.0.0.1') {}

  /** Points the fleet at a restarted daemon (same address, new admin client). */
  retarget(port: number): void { this.port = port; }

  async provision(count: number, progress?: (n: number) => void, prefix = 'sim'): Promise<void> {
    const one = async (i: number) => {
      const hwid = `${prefix}-${i}`;
      const token = (await this.client.must('POST', `/api/servers/${this.serverId}/tokens`)).json.token;
      let a = await this.post('/api/v1/provision', { token, hwid });
      // Enrolment past the daemon's device request rate waits as it is told.
      while (a.status === 429) {
        await new Promise((r) => setTimeout(r, Number(a.retryAfter ?? 1) * 1000 * (1 + Math.random())));
        a = await this.post('/api/v1/provision', { token, hwid });
      }
      if (a.status !== 200) throw new Error(`provisioning ${hwid}: ${a.status} ${a.text}`);
      const payload = JSON.parse(decryptPayload(JSON.parse(a.text).encrypted_config, deviceKey(hwid, this.salt)));
      this.ids.push(payload.device_id);
      progress?.(this.ids.length);
    };
    for (let i = 0; i < count; i += 8) await Promise.all(Array.from({ length: Math.min(8, count - i) }, (_, k) => one(i + k)));
  }

  post(path: string, body: unknown): Promise<{ status: number; text: string; ms: number; retryAfter?: string; error?: string }> {
    const data = Buffer.from(JSON.stringify(body));
    return new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.request({ host: this.host, port: this.port, method: 'POST', path, agent: this.agent,
        headers: { 'content-type': 'application/json', 'content-length': data.length } }, (res) => {
        let text = '';
        res.on('data', (c) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, ms: performance.now() - t0, retryAfter: res.headers['retry-after'] }));
        res.on('error', () => resolve({ status: 0, text: 'response error', ms: performance.now() - t0 }));
      });
      req.on('error', (err) => resolve({ status: 0, text: err.message, error: (err as NodeJS.ErrnoException).code, ms: performance.now() - t0 }));
      req.end(data);
    });
  }

  /** When each device last got a 200 (ms since the epoch). */
  readonly lastOk = new Map<string, number>();
  /** Heartbeats not answered 200 within LOST_AFTER_MS, retries included. */
  lost = 0;
  /** Heartbeats answered only after a failed attempt (a cut), and when the last of them was answered. */
  retried = 0;
  retriedLastOkAt = 0;

  /**
   * One heartbeat of one device, retried as an agent does until answered or LOST_AFTER_MS
   * passed: after a 429 its Retry-After plus a random part of it again, else 1 s, then 2 s, …
   * (a daemon restarting after a power cut refuses connections for a few seconds).
   */
  async beat(deviceId: string): Promise<void> {
    const t0 = performance.now();
    for (let attempt = 1; ; attempt++) {
      const a = await this.post('/api/v1/heartbeat', { device_id: deviceId, status: 'connected', state: 'HEARTBEAT', tunnel_up: true,
        last_handshake: new Date(Date.now() - (Date.now() % 120_000)).toISOString() });
      this.statuses.set(a.status, (this.statuses.get(a.status) ?? 0) + 1);
      if (a.status === 0) this.networkErrors.set(a.error ?? a.text, (this.networkErrors.get(a.error ?? a.text) ?? 0) + 1);
      if (a.status === 200) {
        this.beats.add(performance.now() - t0);
        this.lastOk.set(deviceId, Date.now());
        if (attempt > 1) { this.retried++; this.retriedLastOkAt = Date.now(); }
        return;
      }
      this.failures++;
      const wait = a.status === 429 ? Number(a.retryAfter ?? 1) * 1000 * (1 + Math.random()) : Math.min(5, attempt) * 1000;
      if (performance.now() - t0 + wait > LOST_AFTER_MS || !this.beating) { this.lost++; return; }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  startBeating(intervalMs: number): void {
    this.beating = true;
    const jitter = () => intervalMs * (0.9 + Math.random() * 0.2);
    for (const id of this.ids) {
      const tick = (delay: number) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!this.beating) return;
          const p = this.beat(id).finally(() => this.inFlight.delete(p));
          this.inFlight.add(p);
          tick(jitter());
        }, delay);
        this.timers.add(timer);
      };
      tick(Math.random() * intervalMs);
    }
  }

  async stopBeating(): Promise<void> {
    this.beating = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all([...this.inFlight]);
  }

  close(): void { this.agent.destroy(); }
}
