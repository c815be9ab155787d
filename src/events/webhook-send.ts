// One HTTP(S) POST of a rendered webhook: a hard total timeout, certificate checks off only
// when that webhook says so, redirects not followed, the address checked by the guard as it
// is connected to, and the answer reduced to a status or an error text for the delivery log.
import http from 'node:http';
import type https from 'node:https';
import net from 'node:net';
import { deliveryRefusalText, refusalOf, urlPort } from '../net/address-guard';
import { guardedLookup, systemResolve, type Resolve } from '../net/guarded-lookup';
import { guardFacts } from '../net/own-listeners';
import type { RenderedRequest } from './webhook-render';

export const WEBHOOK_TIMEOUT_MS = 5000;

export interface SendResult { ok: boolean; httpStatus: number | null; error: string; durationMs: number }

export function sendWebhook(url: string, req: RenderedRequest, verifySSL: boolean, timeoutMs = WEBHOOK_TIMEOUT_MS, resolve: Resolve = systemResolve): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<SendResult>((done) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done({ ...r, durationMs: elapsed() });
    };
    const failed = (error: string) => finish({ ok: false, httpStatus: null, error });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return failed('invalid URL');
    }
    const port = urlPort(target);
    // A literal address is never looked up, so it is checked here; a name, by the lookup.
    const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const refusal = net.isIP(literal) ? refusalOf(literal, port, guardFacts()) : null;
    if (refusal) return failed(deliveryRefusalText(refusal));
    const body = Buffer.from(req.body, 'utf8');
    const options: https.RequestOptions = {
      method: 'POST',
      headers: { ...req.headers, 'Content-Length': String(body.length) },
      // A fresh connection per attempt; verifySSL=false affects only this request.
      agent: false,
      rejectUnauthorized: verifySSL,
      lookup: guardedLookup(port, guardFacts, resolve),
    };
    // node:https (and TLS) only once a webhook goes to an https URL: an idle router never loads it.
    const client: typeof http | typeof https = target.protocol === 'https:' ? require('node:https') as typeof https : http;
    let request: http.ClientRequest;
    try {
      request = client.request(target, options, (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not needed: drain it so the socket closes.
        res.resume();
        res.on('end', () => finish(status >= 200 && status < 300
          ? { ok: true, httpStatus: status, error: '' }
          : { ok: false, httpStatus: status, error: `receiver answered ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}` }));
        res.on('error', (err) => finish({ ok: false, httpStatus: status, error: err.message }));
      });
    } catch (err) {
      // A header stored before the input check refused what Node cannot send.
      return failed(err instanceof Error ? err.message : String(err));
    }
    timer = setTimeout(() => {
      failed(`timed out after ${timeoutMs} ms`);
      request.destroy();
    }, timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => failed(err.code ? `${err.code}: ${err.message}` : err.message));
    request.end(body);
  });
}
