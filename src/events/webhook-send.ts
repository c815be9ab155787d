// One HTTP(S) POST of a rendered webhook: a hard total timeout, certificate checks off only
// when that webhook says so, redirects not followed, and the answer reduced to a status or
// an error text for the delivery log.
import http from 'node:http';
import https from 'node:https';
import type { RenderedRequest } from './webhook-render';

export const WEBHOOK_TIMEOUT_MS = 5000;

export interface SendResult { ok: boolean; httpStatus: number | null; error: string; durationMs: number }

export function sendWebhook(url: string, req: RenderedRequest, verifySSL: boolean, timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: elapsed() });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      finish({ ok: false, httpStatus: null, error: 'invalid URL' });
      return;
    }
    const body = Buffer.from(req.body, 'utf8');
    const options: https.RequestOptions = {
      method: 'POST',
      headers: { ...req.headers, 'Content-Length': String(body.length) },
      // A fresh connection per attempt; verifySSL=false affects only this request.
      agent: false,
      rejectUnauthorized: verifySSL,
    };
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(target, options, (res) => {
      const status = res.statusCode ?? 0;
      // The answer's body is not needed: drain it so the socket closes.
      res.resume();
      res.on('end', () => finish(status >= 200 && status < 300
        ? { ok: true, httpStatus: status, error: '' }
        : { ok: false, httpStatus: status, error: `receiver answered ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}` }));
      res.on('error', (err) => finish({ ok: false, httpStatus: status, error: err.message }));
    });
    const timer = setTimeout(() => {
      finish({ ok: false, httpStatus: null, error: `timed out after ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, httpStatus: null, error: err.code ? `${err.code}: ${err.message}` : err.message }));
    request.end(body);
  });
}
