// What anyone without credentials can make the daemon read, against a real daemon over raw
// HTTP: the sign-in and the device API take small bodies, refused with 413 before they are
// read whole (so never parsed), a deep body is refused before JSON.parse, and /healthz
// answers while a crowd of such requests hangs open.
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { DEVICE_BODY_LIMIT, PUBLIC_BODY_LIMIT, MAX_JSON_DEPTH, jsonDepthOver } from '../src/http/body';
import { createRequestHandler } from '../src/http/server';
import { silentLogger } from '../src/log';

const t = suite('body limits before credentials: small bodies, refused before they are read whole or parsed');
let d: TestDaemon;
let deviceUrl: string;
t.before(async () => {
  d = await startTestDaemon({ env: { SERVER_SALT: 'body-limits-salt-0123456789', WGCP_DEVICE_LISTEN: '127.0.0.1:0' } });
  deviceUrl = `http://127.0.0.1:${d.daemon.devicePort}`;
});
t.after(async () => { await d.stop(); });

interface Hanging { status: number; body: string; sent: number; close(): void }

/**
 * Sends the head of a request and `sent` bytes of its body, then waits, the body left
 * unfinished: an answer that arrives proves the daemon refused it without the rest, so it
 * never parsed it. `declared`: a Content-Length to claim; without it the body is chunked.
 */
function hangingPost(base: string, path: string, first: string, declared?: number): Promise<Hanging> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = declared === undefined ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': declared };
    const req = http.request(`${base}${path}`, { method: 'POST', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode!, body, sent: Buffer.byteLength(first), close: () => req.destroy() }));
    });
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    // A daemon that waits for the rest is the failure this suite looks for: end it, not the run.
    req.setTimeout(20_000, () => { req.destroy(); reject(new Error(`${path}: no answer while the body was unfinished (the daemon waited for it)`)); });
    req.write(first);
    // No req.end(): the body never finishes.
  });
}

const nested = (bytes: number) => '{"key":' + '['.repeat(bytes);

t('a 1 MiB sign-in announced by Content-Length is refused with 413 before a byte of it is read', async () => {
  const r = await hangingPost(d.url, '/api/session', nested(1024), 1024 * 1024);
  r.close();
  assert.is(r.status, 413);
  assert.equal(JSON.parse(r.body), { error: `request body is larger than ${PUBLIC_BODY_LIMIT} bytes` });
});

t('a chunked sign-in is refused with 413 as soon as it passes 4 KiB, its end never sent', async () => {
  const r = await hangingPost(d.url, '/api/session', nested(PUBLIC_BODY_LIMIT + 100));
  r.close();
  assert.is(r.status, 413);
  assert.match(r.body, /larger than 4096 bytes/);
});

t('the device API on its own listener: provision and heartbeat refuse past 8 KiB the same way', async () => {
  for (const path of ['/api/v1/provision', '/api/v1/heartbeat']) {
    const declared = await hangingPost(deviceUrl, path, nested(100), 1024 * 1024);
    declared.close();
    assert.is(declared.status, 413, path);
    const chunked = await hangingPost(deviceUrl, path, nested(DEVICE_BODY_LIMIT + 100));
    chunked.close();
    assert.is(chunked.status, 413, path);
    assert.match(chunked.body, /larger than 8192 bytes/);
  }
});

t('the largest heartbeat the contract allows (a 1,024-character state, every character escaped) still fits', async () => {
  const state = '\\u00e9'.repeat(1024);
  const body = `{"device_id":"00000000-0000-4000-8000-000000000000","status":"connected","state":"${state}","tunnel_up":true,"last_handshake":"2026-01-01T00:00:00.000Z"}`;
  const r = await call(deviceUrl, 'POST', '/api/v1/heartbeat', body);
  assert.is(r.status, 404, r.text); // read and parsed whole: the device is simply unknown
});

t('sixteen such requests hang open at once and /healthz still answers; each got its 413', async () => {
  const crowd = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2
    ? hangingPost(d.url, '/api/session', nested(64 * 1024))
    : hangingPost(d.url, '/api/session', nested(100), 1024 * 1024))));
  const health = await call(d.url, 'GET', '/healthz');
  assert.is(health.status, 200);
  for (const r of crowd) { r.close(); assert.is(r.status, 413); }
});

t('a deep body within the size is refused before JSON.parse: 400 naming the depth', async () => {
  const deep = `{"key":${'['.repeat(2000)}${']'.repeat(2000)}}`;
  assert.ok(deep.length < PUBLIC_BODY_LIMIT);
  const r = await call(d.url, 'POST', '/api/session', deep);
  assert.is(r.status, 400);
  assert.equal(r.json, { error: `request body nests deeper than ${MAX_JSON_DEPTH} levels` });
  // Behind credentials too: a 1 MiB deep body costs one pass, not a parse.
  const big = `{"name":${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
  const a = await call(d.url, 'POST', '/api/servers', big, { 'wg-control-key': d.key });
  assert.is(a.status, 400);
  assert.match(a.json.error, /nests deeper/);
});

t('the depth pass skips brackets inside strings and escaped quotes', () => {
  assert.not.ok(jsonDepthOver(JSON.stringify({ a: '[[[[[[["\\'.repeat(100) }), 3));
  assert.ok(jsonDepthOver('[[[[', 3));
  assert.not.ok(jsonDepthOver('[[[]]]', 3));
});

t('a route table that lets a route without credentials take a large body does not start', () => {
  const route = { method: 'POST' as const, path: '/open', auth: 'none' as const, bodyLimit: 1024 * 1024, handler: () => ({ status: 204 }) };
  assert.throws(() => createRequestHandler({ routes: [route], log: silentLogger, bodyLimit: 1024 * 1024, authenticate: () => { throw new Error('none'); } }), /takes no credentials but asks for a 1048576-byte body/);
});

t.run();
