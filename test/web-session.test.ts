// The dashboard's sign-in: sessions and their cookie, the same-origin rule for a cookie
// that changes state, the sign-in limit, and ends of a session (sign-out, idle, revoked
// credential, changed WGCP_API_KEY). Real wgcpd over real HTTP; no browser needed.
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import Database from 'better-sqlite3';
import { call, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { selfSignedPair } from './helpers/receiver';
import { skip, unmet } from './helpers/root';
import { createLogger } from '../src/log';
import { createRequestHandler } from '../src/http/server';
import { sessionRoutes } from '../src/http/session';
import { SESSION_IDLE_MS, SESSION_MAX_MS } from '../src/store/sessions';

const t = suite('dashboard sessions: cookie, same-origin rule, sign-in limit, session ends');

let d: TestDaemon;
let clock = Date.parse('2026-11-22T10:00:00.000Z');
const logLines: string[] = [];
const SERVER = { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' };
const CONFIGURED_KEY = 'configured-key-0123456789';

t.before(async () => {
  d = await startTestDaemon({
    env: { WGCP_API_KEY: CONFIGURED_KEY },
    options: { now: () => new Date(clock), log: createLogger('debug', (l) => { logLines.push(l); }) },
  });
});
t.after(async () => { await d.stop(); });

const origin = () => d.url;
/** Signs in with `key` and returns the Set-Cookie header and the cookie pair to send back. */
async function signIn(key: string, headers: Record<string, string> = {}) {
  const r = await call(d.url, 'POST', '/api/session', { key }, { 'Content-Type': 'application/json', Origin: origin(), ...headers });
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { status: r.status, json: r.json, headers: r.headers, setCookie, cookie: setCookie.split(';')[0] };
}
const withCookie = (cookie: string, headers: Record<string, string> = {}) => ({ Cookie: cookie, ...headers });

t('signing in with an API key answers 204 and an HttpOnly, SameSite=Strict, Path=/ cookie (not Secure over plain HTTP)', async () => {
  const s = await signIn(d.key);
  assert.is(s.status, 204);
  assert.match(s.setCookie, /^wgcp_session=[A-Za-z0-9_-]{43}; /);
  for (const attr of ['Path=/', 'HttpOnly', 'SameSite=Strict']) assert.ok(s.setCookie.split('; ').includes(attr), attr);
  assert.not.match(s.setCookie, /Secure/);
  const state = await call(d.url, 'GET', '/api/session', undefined, withCookie(s.cookie));
  assert.is(state.json.signedIn, true);
  assert.is((await call(d.url, 'GET', '/api/session')).json.signedIn, false);
});

t('with the cookie the page calls the same JSON API: reads, and changes from its own origin', async () => {
  const { cookie } = await signIn(d.key);
  assert.is((await call(d.url, 'GET', '/api/servers', undefined, withCookie(cookie))).status, 200);
  const made = await call(d.url, 'POST', '/api/servers', SERVER, withCookie(cookie, { Origin: origin() }));
  assert.is(made.status, 201);
  const byFetchMetadata = await call(d.url, 'PUT', `/api/servers/${made.json.id}`, { name: 'home2' }, withCookie(cookie, { 'Sec-Fetch-Site': 'same-origin' }));
  assert.is(byFetchMetadata.status, 200);
  assert.is(byFetchMetadata.json.name, 'home2');
});

t('a state-changing request with the cookie from another origin, or saying nothing of its origin, is 403 and changes nothing', async () => {
  const { cookie } = await signIn(d.key);
  const before = (await call(d.url, 'GET', '/api/servers', undefined, withCookie(cookie))).json.length;
  const tries: Record<string, string>[] = [
    { Origin: 'http://evil.example' },
    { Origin: 'null' },
    { Origin: origin(), 'Sec-Fetch-Site': 'cross-site' },
    { 'Sec-Fetch-Site': 'same-site' },
    {},
  ];
  for (const h of tries) {
    const r = await call(d.url, 'POST', '/api/servers', { ...SERVER, name: 'evil', endpoint: 'evil.example:51999' }, withCookie(cookie, h));
    assert.is(r.status, 403, JSON.stringify(h));
    assert.is(r.json.code, 'WGCP_CROSS_SITE');
  }
  assert.is((await call(d.url, 'GET', '/api/servers', undefined, withCookie(cookie))).json.length, before);
  // A header credential is not a cookie: no browser sends it across sites on its own.
  assert.is((await call(d.url, 'DELETE', '/api/servers/999', undefined, { 'wg-control-key': d.key, Origin: 'http://evil.example' })).status, 404);
});

t('the event stream takes the cookie from the page\'s origin and refuses it from another', async () => {
  const { cookie } = await signIn(d.key);
  const url = d.url.replace('http:', 'ws:') + '/api/events';
  const open = (o: string) => new Promise<number>((resolve) => {
    const ws = new WebSocket(url, { headers: { Cookie: cookie, Origin: o } });
    ws.once('open', () => { ws.terminate(); resolve(101); });
    ws.once('unexpected-response', (_req, res) => { ws.terminate(); resolve(res.statusCode ?? 0); });
    ws.once('error', () => resolve(-1));
  });
  assert.is(await open(origin()), 101);
  assert.is(await open('http://evil.example'), 401);
});

t('a wrong or missing key is refused naming the field "key"; a sign-in sent from another site is 403', async () => {
  const wrong = await signIn('wgk_not-a-key');
  assert.is(wrong.status, 401);
  assert.equal(wrong.json, { error: 'unauthorized', code: 'WGCP_UNAUTHORIZED', field: 'key' });
  assert.is(wrong.setCookie, '');
  const missing = await call(d.url, 'POST', '/api/session', {}, { Origin: origin() });
  assert.is(missing.status, 400);
  assert.is(missing.json.field, 'key');
  const foreign = await signIn(d.key, { Origin: 'http://evil.example' });
  assert.is(foreign.status, 403);
  assert.is(foreign.setCookie, '');
});

t('signing in with a stored API key or an access token works, and revoking it ends its sessions', async () => {
  for (const kind of ['apikey', 'token'] as const) {
    const { id, secret } = d.daemon.app.store.credentials.create(kind, 'dash', new Date(clock).toISOString());
    const { status, cookie } = await signIn(kind === 'token' ? `Bearer ${secret}` : secret);
    assert.is(status, 204, kind);
    assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 200, kind);
    d.daemon.app.store.credentials.revoke(kind, id);
    assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 401, kind);
  }
});

t('a session opened with an access token ends when the token does', async () => {
  const expiresAt = new Date(clock + 60 * 60_000).toISOString();
  const { secret } = d.daemon.app.store.credentials.create('token', 'short', new Date(clock).toISOString(), expiresAt);
  const { cookie } = await signIn(secret);
  clock += 25 * 60_000;
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 200);
  clock += 25 * 60_000;
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 200);
  clock += 11 * 60_000;
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 401);
});

t('a session ends after 30 minutes unused, and after 12 hours however used', async () => {
  const { cookie } = await signIn(d.key);
  clock += SESSION_IDLE_MS - 60_000;
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 200);
  clock += SESSION_IDLE_MS + 1000;
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 401);

  const kept = await signIn(d.key);
  const end = clock + SESSION_MAX_MS;
  while (clock + 20 * 60_000 < end) {
    clock += 20 * 60_000;
    assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(kept.cookie))).status, 200);
  }
  clock = end;
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(kept.cookie))).status, 401);
});

t('sign-out ends the session and clears the cookie; from another origin it is refused and the session stays', async () => {
  const { cookie } = await signIn(d.key);
  const foreign = await call(d.url, 'DELETE', '/api/session', undefined, withCookie(cookie, { Origin: 'http://evil.example' }));
  assert.is(foreign.status, 403);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 200);
  const out = await call(d.url, 'DELETE', '/api/session', undefined, withCookie(cookie, { Origin: origin() }));
  assert.is(out.status, 204);
  assert.match(out.headers.get('set-cookie') ?? '', /^wgcp_session=; .*Max-Age=0/);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 401);
  assert.is((await call(d.url, 'GET', '/api/session', undefined, withCookie(cookie))).json.signedIn, false);
});

t('sessions are stored as hashes only, and no log line holds a key or a cookie value', async () => {
  const { cookie } = await signIn(d.key);
  const value = cookie.split('=')[1];
  const db = new Database(path.join(d.dataDir, 'wgcp.db'), { readonly: true });
  const hashes = db.prepare('SELECT hash FROM sessions').pluck().all() as string[];
  db.close();
  assert.ok(hashes.length > 0);
  assert.ok(hashes.every((h) => /^[0-9a-f]{64}$/.test(h) && h !== value));
  const files = fs.readdirSync(d.dataDir).filter((f) => f.startsWith('wgcp.db'));
  for (const f of files) assert.not.ok(fs.readFileSync(path.join(d.dataDir, f)).includes(value), `${f} holds the cookie value`);
  const logs = logLines.join('');
  assert.match(logs, /dashboard session opened/);
  for (const secret of [value, d.key, CONFIGURED_KEY]) assert.not.ok(logs.includes(secret));
});

t('a session opened with WGCP_API_KEY ends when wgcpd restarts with another key', async () => {
  const dataDir = tempDir();
  const first = await startTestDaemon({ dataDir, env: { WGCP_API_KEY: CONFIGURED_KEY } });
  const r = await call(first.url, 'POST', '/api/session', { key: CONFIGURED_KEY }, { Origin: first.url });
  const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0];
  assert.is((await call(first.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 200);
  await first.stop();
  const same = await startTestDaemon({ dataDir, env: { WGCP_API_KEY: CONFIGURED_KEY } });
  assert.is((await call(same.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 200);
  await same.stop();
  const other = await startTestDaemon({ dataDir, env: { WGCP_API_KEY: 'another-configured-key-000' } });
  assert.is((await call(other.url, 'GET', '/api/stats', undefined, withCookie(cookie))).status, 401);
  await other.stop();
});

t('failed sign-ins are limited per address: past 10 in 5 minutes, 429 with Retry-After, even for the right key', async () => {
  clock += SESSION_MAX_MS;
  for (let i = 0; i < 10; i++) assert.is((await signIn(`wrong-${i}`)).status, 401);
  const blocked = await signIn(d.key);
  assert.is(blocked.status, 429);
  const wait = Number(blocked.headers.get('retry-after'));
  assert.ok(wait > 0 && wait <= 300, `Retry-After ${wait}`);
  assert.is(blocked.setCookie, '');
  clock += 5 * 60_000 + 1000;
  assert.is((await signIn(d.key)).status, 204);
});

t('under TLS the cookie is Secure', async () => {
  const missing = unmet(['openssl']);
  if (missing) return void skip('dashboard sessions under TLS', missing);
  const pair = selfSignedPair();
  const handler = createRequestHandler({ routes: sessionRoutes(d.daemon.app), log: d.daemon.app.log, bodyLimit: 4096, authenticate: () => ({ kind: 'apikey' as const, id: null, name: 'test', role: 'admin' as const, address: null }) });
  const server = https.createServer({ key: pair.key, cert: pair.cert }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const setCookie = await new Promise<string>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path: '/api/session', method: 'POST', ca: pair.cert, headers: { 'Content-Type': 'application/json' } }, (res) => {
        res.resume();
        resolve(String(res.headers['set-cookie'] ?? ''));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ key: d.key }));
    });
    assert.match(setCookie, /^wgcp_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

t.run();
