import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Duplex } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postJson, RequestError } from '../src/http-client';
import { ManualClock, until } from './helpers/clocks';
import { canRun } from './helpers/root';
import { tempDir } from './helpers/temp-dir';

const t = suite('agent HTTP client');

/** A local server answering each request with the next planned status (the last one repeats). */
async function server(plan: (number | 'silent' | { retryAfter: string })[], secure?: { key: string; cert: string }) {
  const seen: { body: string; type: string | undefined }[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push({ body, type: req.headers['content-type'] });
      const step = plan[Math.min(seen.length - 1, plan.length - 1)];
      if (step === 'silent') return; // never answers: the read timeout must end it
      if (typeof step === 'object') {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': step.retryAfter });
        res.end(JSON.stringify({ error: 'too many device requests; try again later' }));
        return;
      }
      res.writeHead(step, { 'content-type': 'application/json' });
      res.end(JSON.stringify(step < 400 ? { ok: true, n: seen.length } : { error: `planned ${step}` }));
    });
  };
  const srv = secure ? https.createServer(secure, handler) : http.createServer(handler);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  return {
    url: new URL(`${secure ? 'https' : 'http'}://127.0.0.1:${port}/api/v1/heartbeat`),
    seen,
    close: () => { srv.closeAllConnections(); return new Promise<void>((r) => srv.close(() => r())); },
  };
}

/** Settles a promise into a value to look at later. */
function watch<T>(p: Promise<T>) {
  const w: { done: boolean; value?: T; error?: RequestError } = { done: false };
  p.then((value) => Object.assign(w, { done: true, value }), (error) => Object.assign(w, { done: true, error }));
  return w;
}

/** A connection stuck in one phase: never connecting, or connected but never taking the bytes. */
function stuckSocket(phase: 'connect' | 'write'): Duplex {
  const d = new Duplex({ read() {}, write() { /* never calls back */ } });
  Object.assign(d, { connecting: phase === 'connect', setNoDelay() {}, setKeepAlive() {}, setTimeout() {}, ref() {}, unref() {} });
  return d;
}

t('posts JSON and returns the answer', async () => {
  const s = await server([200]);
  const a = await postJson(s.url, { device_id: 'x' }, { clock: new ManualClock() });
  assert.equal(a, { status: 200, json: { ok: true, n: 1 } });
  assert.equal(s.seen, [{ body: '{"device_id":"x"}', type: 'application/json' }]);
  await s.close();
});

t('retries a 5xx after 1 s, then after 2 s, and succeeds on the third attempt', async () => {
  const s = await server([500, 503, 200]);
  const clock = new ManualClock();
  const w = watch(postJson(s.url, {}, { clock }));
  await until(() => clock.pending().includes(1000), 3000, 'first wait');
  assert.is(s.seen.length, 1);
  clock.advance(999);
  assert.is(s.seen.length, 1);
  clock.advance(1);
  await until(() => clock.pending().includes(2000), 3000, 'second wait');
  assert.is(s.seen.length, 2);
  clock.advance(2000);
  await until(() => w.done, 3000, 'answer');
  assert.equal(w.value, { status: 200, json: { ok: true, n: 3 } });
  await s.close();
});

t('gives up after 3 attempts with the last error', async () => {
  const s = await server([500]);
  const clock = new ManualClock();
  const w = watch(postJson(s.url, {}, { clock }));
  for (const wait of [1000, 2000]) {
    await until(() => clock.pending().includes(wait), 3000, `wait ${wait}`);
    clock.advance(wait);
  }
  await until(() => w.done, 3000, 'failure');
  assert.is(s.seen.length, 3);
  assert.is(w.error!.status, 500);
  assert.match(w.error!.message, 'HTTP 500: planned 500');
  await s.close();
});

t('a 429 is retried after its Retry-After plus a random part of it again, not after 1 s', async () => {
  const s = await server([{ retryAfter: '4' }, 200]);
  const clock = new ManualClock();
  const w = watch(postJson(s.url, {}, { clock, random: () => 0.25 }));
  await until(() => clock.pending().includes(5000), 3000, 'a wait of 4 s x 1.25');
  clock.advance(4999);
  assert.is(s.seen.length, 1);
  clock.advance(1);
  await until(() => w.done, 3000, 'answer');
  assert.equal(w.value, { status: 200, json: { ok: true, n: 2 } });
  await s.close();
});

t('devices refused together come back spread: the jitter spans Retry-After to twice it', async () => {
  const { retryAfterWaitMs } = await import('../src/http-client');
  assert.is(retryAfterWaitMs(3, () => 0), 3000);
  assert.is(retryAfterWaitMs(3, () => 0.999), 5997);
  assert.is(retryAfterWaitMs(undefined, () => 0.5), 1500, 'no Retry-After: 1 s');
  assert.is(retryAfterWaitMs(301, () => 0), null, 'a wait past 60 s ends the request instead');
  // 100 devices whose random numbers spread evenly wait through every second from 10 to 20.
  const waits = Array.from({ length: 100 }, (_, i) => retryAfterWaitMs(10, () => i / 100)!);
  assert.equal([...new Set(waits.map((x) => Math.floor(x / 1000)))], [10, 11, 12, 13, 14, 15, 16, 17, 18, 19], 'spread over the seconds from 10 to 20');
});

t('a 429 asking for more than 60 s ends the request (the caller backs off), without waiting', async () => {
  const s = await server([{ retryAfter: '300' }]);
  const err = await postJson(s.url, {}, { clock: new ManualClock() }).catch((e) => e);
  assert.equal([err.status, err.retryable], [429, false]);
  assert.is(s.seen.length, 1);
  await s.close();
});

t('does not retry a 4xx: another attempt would get the same answer', async () => {
  const s = await server([403]);
  const err = await postJson(s.url, {}, { clock: new ManualClock() }).catch((e) => e);
  assert.instance(err, RequestError);
  assert.equal([err.status, err.retryable, err.message], [403, false, 'HTTP 403: planned 403']);
  assert.is(s.seen.length, 1);
  await s.close();
});

t('retries a refused connection', async () => {
  const s = await server([200]);
  const url = s.url;
  await s.close();
  const clock = new ManualClock();
  const w = watch(postJson(url, {}, { clock }));
  for (const wait of [1000, 2000]) {
    await until(() => clock.pending().includes(wait), 3000, `wait ${wait}`);
    clock.advance(wait);
  }
  await until(() => w.done, 3000, 'failure');
  assert.match(w.error!.message, /ECONNREFUSED/);
});

t('ends a connection that does not connect within 10 s', async () => {
  const clock = new ManualClock();
  const w = watch(postJson(new URL('http://device-api.invalid/api/v1/provision'), {}, { clock, attempts: 1, createConnection: () => stuckSocket('connect') }));
  await until(() => clock.pending().length > 0, 3000, 'connect timer');
  clock.advance(9_999);
  await new Promise((r) => setTimeout(r, 20));
  assert.not.ok(w.done);
  clock.advance(1);
  await until(() => w.done, 3000, 'timeout');
  assert.is(w.error!.message, 'connect timeout after 10 s');
});

t('ends a request whose body is not written within 10 s', async () => {
  const clock = new ManualClock();
  const w = watch(postJson(new URL('http://device-api.invalid/'), { a: 1 }, { clock, attempts: 1, createConnection: () => stuckSocket('write') }));
  await until(() => clock.pending().includes(10_000), 3000, 'write timer');
  await new Promise((r) => setTimeout(r, 20)); // the socket is handed over on a later tick
  clock.advance(9_999);
  await new Promise((r) => setTimeout(r, 20));
  assert.not.ok(w.done);
  clock.advance(1);
  await until(() => w.done, 3000, 'timeout');
  assert.is(w.error!.message, 'write timeout after 10 s');
});

t('ends a request whose answer does not come within 30 s', async () => {
  const s = await server(['silent']);
  const clock = new ManualClock();
  const w = watch(postJson(s.url, {}, { clock, attempts: 1 }));
  await until(() => s.seen.length === 1 && clock.pending().includes(30_000), 3000, 'read timer');
  clock.advance(29_999);
  await new Promise((r) => setTimeout(r, 20));
  assert.not.ok(w.done);
  clock.advance(1);
  await until(() => w.done, 3000, 'timeout');
  assert.is(w.error!.message, 'read timeout after 30 s');
  await s.close();
});

t('ends an answer whose body stalls, with the read timeout', async () => {
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }); res.write('{"device_id":'); });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = new URL(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/`);
  const clock = new ManualClock();
  const w = watch(postJson(url, {}, { clock, attempts: 1 }));
  await until(() => clock.pending().includes(30_000), 3000, 'read timer');
  await new Promise((r) => setTimeout(r, 50));
  assert.not.ok(w.done);
  clock.advance(30_000);
  await until(() => w.done, 3000, 'timeout');
  assert.is(w.error!.message, 'read timeout after 30 s');
  srv.closeAllConnections();
  srv.close();
});

t('speaks HTTPS to a server whose certificate the ca_file vouches for, and refuses others', async () => {
  if (!canRun('agent HTTPS client', ['openssl'])) return;
  const dir = tempDir('wgcp-agent-tls-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
  const cert = fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  const s = await server([200], { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert });
  assert.equal((await postJson(s.url, {}, { clock: new ManualClock(), ca: cert })).status, 200);
  const err = await postJson(s.url, {}, { clock: new ManualClock(), attempts: 1 }).catch((e) => e);
  assert.match(err.message, /self[- ]signed/i);
  await s.close();
});

t('stops waiting between attempts when the agent stops', async () => {
  const s = await server([500]);
  const stopper = new AbortController();
  const clock = new ManualClock();
  const w = watch(postJson(s.url, {}, { clock, signal: stopper.signal }));
  await until(() => clock.pending().includes(1000), 3000, 'wait');
  stopper.abort();
  await until(() => w.done, 3000, 'stop');
  assert.is(s.seen.length, 1);
  await s.close();
});

t.run();
