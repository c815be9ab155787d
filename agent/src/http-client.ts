// JSON over HTTP(S) with the contract's limits: connect 10 s, write 10 s, read 30 s, and up
// to 3 attempts waiting attempt x 1 s between them. Only failures that another attempt
// could cure are retried: no answer, a timeout, a 5xx, or a 429 (the server's herd guard),
// which is retried after its Retry-After plus a random part of it again, so that devices
// refused together do not come back together.
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { sleep, type Clock } from './clock';

export interface Timeouts { connectMs: number; writeMs: number; readMs: number }
export const CONTRACT_TIMEOUTS: Timeouts = { connectMs: 10_000, writeMs: 10_000, readMs: 30_000 };
export const MAX_ATTEMPTS = 3;
/** The longest Retry-After waited inside one request; a longer one ends it (the caller's own back-off follows). */
export const MAX_RETRY_AFTER_S = 60;
const MAX_ANSWER_BYTES = 64 * 1024;

export interface HttpOptions {
  clock: Clock;
  ca?: string | null;
  timeouts?: Timeouts;
  attempts?: number;
  signal?: AbortSignal;
  /** Replaces the TCP connection (tests use it to hold a connection in one phase). */
  createConnection?: () => Duplex;
  /** A number in [0, 1) for the jitter of a 429's wait (tests fix it). */
  random?: () => number;
}

export interface Answer { status: number; json: unknown; retryAfterS?: number }

export class RequestError extends Error {
  constructor(message: string, readonly status: number | null, readonly retryable: boolean, readonly waitMs?: number, readonly code?: string) { super(message); }
}

/** The daemon's error code (`{"code": "WGCP_..."}`), when the answer carries one. */
const codeOf = (json: unknown): string | undefined => {
  const code = (json as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** How long to wait after a 429: Retry-After (1 s when absent) and up to as much again at random; null when too long. */
export function retryAfterWaitMs(retryAfterS: number | undefined, random: () => number): number | null {
  const s = retryAfterS !== undefined && Number.isFinite(retryAfterS) && retryAfterS >= 0 ? retryAfterS : 1;
  if (s > MAX_RETRY_AFTER_S) return null;
  return Math.round(s * 1000 * (1 + random()));
}

export async function postJson(url: URL, body: unknown, opts: HttpOptions): Promise<Answer> {
  const attempts = opts.attempts ?? MAX_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await requestOnce(url, body, opts);
      if (answer.status === 429) {
        const waitMs = retryAfterWaitMs(answer.retryAfterS, opts.random ?? Math.random);
        throw new RequestError(`HTTP 429${errorText(answer.json)}`, 429, waitMs !== null, waitMs ?? undefined);
      }
      if (answer.status >= 500) throw new RequestError(`HTTP ${answer.status}${errorText(answer.json)}`, answer.status, true);
      if (answer.status >= 400) throw new RequestError(`HTTP ${answer.status}${errorText(answer.json)}`, answer.status, false, undefined, codeOf(answer.json));
      return answer;
    } catch (err) {
      const e = err instanceof RequestError ? err : new RequestError((err as Error).message, null, true);
      if (!e.retryable || attempt >= attempts || opts.signal?.aborted) throw e;
      await sleep(opts.clock, e.waitMs ?? attempt * 1000, opts.signal);
      if (opts.signal?.aborted) throw e;
    }
  }
}

function errorText(json: unknown): string {
  const error = (json as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? `: ${error}` : '';
}

/** One request, each phase under its own timer from the injected clock. */
export function requestOnce(url: URL, body: unknown, opts: HttpOptions): Promise<Answer> {
  const t = opts.timeouts ?? CONTRACT_TIMEOUTS;
  const clock = opts.clock;
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise<Answer>((resolve, reject) => {
    let timer: unknown = null;
    let settled = false;
    let cause: RequestError | null = null;
    const abort = (err: RequestError) => { cause = err; req.destroy(err); };
    const phase = (name: string, ms: number) => {
      if (timer !== null) clock.clearTimeout(timer);
      timer = clock.setTimeout(() => abort(new RequestError(`${name} timeout after ${ms / 1000} s`, null, true)), ms);
    };
    const finish = (err: Error | null, answer?: Answer) => {
      if (settled) return;
      settled = true;
      if (timer !== null) clock.clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err); else resolve(answer!);
    };
    const onAbort = () => abort(new RequestError('stopped', null, false));
    const secure = url.protocol === 'https:';
    const options: https.RequestOptions = {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': payload.length, accept: 'application/json' },
      ...(secure ? { ca: opts.ca ?? undefined, minVersion: 'TLSv1.2' as const } : {}),
      // A fresh connection each time (no pooled socket outlives a network change).
      ...(opts.createConnection ? { createConnection: opts.createConnection as any } : { agent: false }),
    };
    const req = (secure ? https : http).request(url, options);
    phase('connect', t.connectMs);
    req.on('socket', (socket) => {
      const connected = () => phase('write', t.writeMs);
      // The connect phase covers the TLS handshake too: a fresh socket (agent: false) is
      // still connecting here.
      if (secure) socket.once('secureConnect', connected);
      else if ((socket as { connecting?: boolean }).connecting) socket.once('connect', connected);
      else connected();
    });
    req.on('finish', () => phase('read', t.readMs));
    req.on('error', (err) => finish(cause ?? err));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_ANSWER_BYTES) abort(new RequestError('answer too large', res.statusCode ?? null, false));
        else chunks.push(c);
      });
      res.on('error', (err) => finish(cause ?? err));
      // A body cut off (by a timeout here, or by the server) ends without 'end'.
      res.on('close', () => { if (!res.complete) finish(cause ?? new RequestError('answer cut off', res.statusCode ?? null, true)); });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
        const retryAfter = res.headers['retry-after'];
        finish(null, { status: res.statusCode ?? 0, json, ...(retryAfter !== undefined && /^\d+$/.test(retryAfter) ? { retryAfterS: Number(retryAfter) } : {}) });
      });
    });
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.end(payload);
  });
}
