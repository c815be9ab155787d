// Simulated devices speaking the device API: provisioned through registration tokens, then
// each heartbeating every interval with ±10 % jitter (their first beats spread over one
// interval, as devices that booted at different times), each beat timed and its status kept.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { decryptPayload, deviceKey } from '../src/device/payload-crypto';
import { SALT } from './scale-daemon';
import { Samples, type Client } from './scale-http';

export class HeartbeatFleet {
  readonly ids: string[] = [];
  readonly beats = new Samples();
  failures = 0;
  /** Answers by status code (a 5xx or a network failure is a lost heartbeat). */
  readonly statuses = new Map<number, number>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private timers = new Set<NodeJS.Timeout>();
  private inFlight = new Set<Promise<void>>();
  private beating = false;

  constructor(private port: number, private readonly client: Client, readonly serverId: number, private readonly host = '127.0.0.1') {}

  /** Points the fleet at a restarted daemon (same address, new admin client). */
  retarget(port: number): void { this.port = port; }

  async provision(count: number, progress?: (n: number) => void, prefix = 'sim'): Promise<void> {
    const one = async (i: number) => {
      const hwid = `${prefix}-${i}`;
      const token = (await this.client.must('POST', `/api/servers/${this.serverId}/tokens`)).json.token;
      const a = await this.post('/api/v1/provision', { token, hwid });
      if (a.status !== 200) throw new Error(`provisioning ${hwid}: ${a.status} ${a.text}`);
      const payload = JSON.parse(decryptPayload(JSON.parse(a.text).encrypted_config, deviceKey(hwid, SALT)));
      this.ids.push(payload.device_id);
      progress?.(this.ids.length);
    };
    for (let i = 0; i < count; i += 8) await Promise.all(Array.from({ length: Math.min(8, count - i) }, (_, k) => one(i + k)));
  }

  post(path: string, body: unknown): Promise<{ status: number; text: string; ms: number }> {
    const data = Buffer.from(JSON.stringify(body));
    return new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.request({ host: this.host, port: this.port, method: 'POST', path, agent: this.agent,
        headers: { 'content-type': 'application/json', 'content-length': data.length } }, (res) => {
        let text = '';
        res.on('data', (c) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, ms: performance.now() - t0 }));
        res.on('error', () => resolve({ status: 0, text: 'response error', ms: performance.now() - t0 }));
      });
      req.on('error', (err) => resolve({ status: 0, text: err.message, ms: performance.now() - t0 }));
      req.end(data);
    });
  }

  /** One heartbeat of one device; a failure is counted and retried as an agent would (up to 3 attempts, 1 s, 2 s). */
  async beat(deviceId: string): Promise<void> {
    const t0 = performance.now();
    for (let attempt = 1; attempt <= 3; attempt++) {
      const a = await this.post('/api/v1/heartbeat', { device_id: deviceId, status: 'connected', state: 'HEARTBEAT', tunnel_up: true,
        last_handshake: new Date(Date.now() - (Date.now() % 120_000)).toISOString() });
      this.statuses.set(a.status, (this.statuses.get(a.status) ?? 0) + 1);
      if (a.status === 200) { this.beats.add(performance.now() - t0); return; }
      this.failures++;
      if (attempt < 3) await new Promise((r) => setTimeout(r, attempt * 1000));
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
