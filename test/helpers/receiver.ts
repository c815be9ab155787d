// A real HTTP(S) webhook receiver on 127.0.0.1 port 0: it records every request and
// answers with the statuses it is told (200 once the script runs out), or holds answers
// until released. The HTTPS variant uses a fresh self-signed pair made by the openssl CLI.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { tempDir } from './daemon';

export interface Received { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }

export function selfSignedPair(): { key: string; cert: string } {
  const dir = tempDir('wgcp-cert-');
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const pair = { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
  fs.rmSync(dir, { recursive: true, force: true });
  return pair;
}

export class Receiver {
  readonly received: Received[] = [];
  /** Statuses to answer, in order; 200 when empty. */
  statuses: number[] = [];
  /** While true, requests are recorded but not answered until release(). */
  hold = false;
  private held: http.ServerResponse[] = [];
  private waiters: (() => void)[] = [];
  url = '';

  private constructor(private readonly server: http.Server | https.Server) {}

  static async start(opts: { tls?: { key: string; cert: string } } = {}): Promise<Receiver> {
    let r: Receiver;
    const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        r.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        for (const w of r.waiters.splice(0)) w();
        if (r.hold) { r.held.push(res); return; }
        res.writeHead(r.statuses.shift() ?? 200).end('ok');
      });
    };
    const server = opts.tls ? https.createServer(opts.tls, onRequest) : http.createServer(onRequest);
    r = new Receiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    r.url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    return r;
  }

  /** Resolves once at least n requests have arrived. */
  async waitFor(n: number, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver got ${this.received.length} requests, expected ${n}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
    return this.received;
  }

  release(status = 200): void {
    this.hold = false;
    for (const res of this.held.splice(0)) res.writeHead(status).end('ok');
  }

  async close(): Promise<void> {
    this.release();
    await new Promise<void>((resolve) => { this.server.close(() => resolve()); this.server.closeAllConnections(); });
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until check() returns a value that is not undefined, or fails after timeoutMs. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
