// The end-to-end bench's client: one keep-alive connection to wgcpd, as a dashboard or a
// script holds it, each request timed from the first byte sent to the last byte read.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Answer { status: number; text: string; json: any; ms: number }

export class Client {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(private readonly port: number, readonly key: string) {}

  request(method: string, path: string, body?: unknown, auth = true): Promise<Answer> {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = {};
    if (auth) headers['wg-control-key'] = this.key;
    if (data) { headers['content-type'] = 'application/json'; headers['content-length'] = data.length; }
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = http.request({ host: '127.0.0.1', port: this.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - t0;
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try { json = text === '' ? undefined : JSON.parse(text); } catch { json = undefined; }
          resolve({ status: res.statusCode ?? 0, text, json, ms });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(data);
    });
  }

  /** A request that must succeed (2xx); anything else stops the bench with wgcpd's answer. */
  async must(method: string, path: string, body?: unknown, auth = true): Promise<Answer> {
    const a = await this.request(method, path, body, auth);
    if (a.status < 200 || a.status >= 300) throw new Error(`${method} ${path}: ${a.status} ${a.text.slice(0, 500)}`);
    return a;
  }

  close(): void { this.agent.destroy(); }
}

/** Samples of one figure, in milliseconds. */
export class Samples {
  readonly values: number[] = [];
  add(ms: number): void { this.values.push(ms); }
  private sorted(): number[] { return [...this.values].sort((a, b) => a - b); }
  quantile(q: number): number {
    const s = this.sorted();
    if (s.length === 0) return NaN;
    return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
  }
  get median(): number { return this.quantile(0.5); }
  get p95(): number { return this.quantile(0.95); }
  get max(): number { return this.quantile(1); }
  get count(): number { return this.values.length; }
}
