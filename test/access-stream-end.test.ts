// An open event stream lives no longer than what let it in: a revoked key or token closes
// its streams at the revocation's commit; a session signed out or ended, a token expired, a
// key revoked by the `wgcp` command on the file close theirs at the next look (seconds).
// Real keys, tokens and sessions against real daemons over WebSocket.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { CLOSE_ACCESS_ENDED } from '../src/events/stream';
import { SESSION_IDLE_MS } from '../src/store/sessions';

const t = suite('access: an event stream ends with its credentials');
// `once`: looks again only every 10 minutes, so what closes its streams is the revocation itself.
let once: TestDaemon;
// `often`: looks again every 200 ms, on a clock the suite moves.
let often: TestDaemon;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const opened: WebSocket[] = [];

t.before(async () => {
  once = await startTestDaemon({ options: { events: { schedule: false, streamRecheckMs: 600_000 } } });
  often = await startTestDaemon({ options: { now, events: { schedule: false, streamRecheckMs: 200 } } });
});
t.after(async () => {
  for (const ws of opened) ws.terminate();
  await once.stop();
  await often.stop();
});

/** The close code; a stream still open after 10 s fails the test rather than hang it. */
function closeOf(ws: WebSocket, seen: (code: number) => void = () => {}): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const limit = setTimeout(() => reject(new Error('the stream is still open 10 s later')), 10_000);
    ws.once('close', (c) => { clearTimeout(limit); seen(c); resolve(c); });
  });
}

interface Stream { ws: WebSocket; closed: Promise<number>; closedWith(): number | null }

async function stream(d: TestDaemon, headers: Record<string, string>): Promise<Stream> {
  const ws = new WebSocket(d.url.replace('http:', 'ws:') + '/api/events', { headers: { Origin: d.url, ...headers } });
  opened.push(ws);
  let code: number | null = null;
  const closed = closeOf(ws, (c) => { code = c; });
  // A stream that is meant to stay open is never awaited: its limit must not throw later.
  closed.catch(() => {});
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return { ws, closed, closedWith: () => code };
}

const json = { 'Content-Type': 'application/json' };
async function signIn(d: TestDaemon, key: string): Promise<string> {
  const r = await call(d.url, 'POST', '/api/session', { key }, json);
  assert.is(r.status, 204, r.text);
  return (r.headers.get('set-cookie') ?? '').split(';')[0];
}
const newKey = async (d: TestDaemon, name: string) => (await client(d).post('/api/apikeys', { name, role: 'viewer' })).json as { id: number; key: string };

t('revoking a key closes its stream at once, and the streams of sessions opened with it; others stay open', async () => {
  const viewer = await newKey(once, 'wall display');
  const byKey = await stream(once, { 'wg-control-key': viewer.key });
  const bySession = await stream(once, { Cookie: await signIn(once, viewer.key) });
  const admin = await stream(once, { 'wg-control-key': once.key });
  assert.is((await client(once).del(`/api/apikeys/${viewer.id}`)).status, 204);
  assert.equal(await Promise.all([byKey.closed, bySession.closed]), [CLOSE_ACCESS_ENDED, CLOSE_ACCESS_ENDED]);
  await client(once).post('/api/servers', { name: 'after', endpoint: 'vpn.example.com:51820', mode: 'forward' });
  assert.is(admin.closedWith(), null, 'the admin\'s stream is open');
  assert.is(admin.ws.readyState, WebSocket.OPEN);
  assert.is((await call(once.url, 'GET', '/api/servers', undefined, { 'wg-control-key': viewer.key })).status, 401);
});

t('revoking an access token closes the stream it opened (as a bearer subprotocol too)', async () => {
  const made = (await client(once).post('/api/access-tokens', { name: 'grafana', role: 'viewer' })).json;
  const ws = new WebSocket(once.url.replace('http:', 'ws:') + '/api/events', ['wgcp', made.token]);
  opened.push(ws);
  const closed = closeOf(ws);
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  assert.is((await client(once).del(`/api/access-tokens/${made.id}`)).status, 204);
  assert.is(await closed, CLOSE_ACCESS_ENDED);
});

t('a key revoked by the wgcp command on the file (another process): its stream closes at the next look', async () => {
  const viewer = await newKey(often, 'kiosk');
  const s = await stream(often, { 'wg-control-key': viewer.key });
  await promisify(execFile)(process.execPath, [path.join(__dirname, '../src/cli/main.js'), '--data-dir', often.dataDir, 'apikey', 'revoke', String(viewer.id)]);
  assert.is(await s.closed, CLOSE_ACCESS_ENDED);
});

t('signing out closes the session\'s stream', async () => {
  const viewer = await newKey(often, 'tablet');
  const cookie = await signIn(often, viewer.key);
  const s = await stream(often, { Cookie: cookie });
  assert.is((await call(often.url, 'DELETE', '/api/session', undefined, { Cookie: cookie, Origin: often.url })).status, 204);
  assert.is(await s.closed, CLOSE_ACCESS_ENDED);
});

t('a session that ends unused closes its stream; an open stream is no use of the session', async () => {
  const viewer = await newKey(often, 'idle');
  const s = await stream(often, { Cookie: await signIn(often, viewer.key) });
  const other = await stream(often, { 'wg-control-key': viewer.key });
  offsetMs += SESSION_IDLE_MS + 60_000;
  assert.is(await s.closed, CLOSE_ACCESS_ENDED);
  // A later look (it closes a stream signed out after this one closed) has left the key's open.
  const markerCookie = await signIn(often, viewer.key);
  const marker = await stream(often, { Cookie: markerCookie });
  await call(often.url, 'DELETE', '/api/session', undefined, { Cookie: markerCookie, Origin: often.url });
  await marker.closed;
  assert.is(other.closedWith(), null, 'the key itself did not end');
  assert.is(other.ws.readyState, WebSocket.OPEN);
});

t('an access token that expires closes its stream', async () => {
  const made = (await client(often).post('/api/access-tokens', { name: 'day pass', role: 'viewer', expiresInDays: 1 })).json;
  const s = await stream(often, { authorization: `Bearer ${made.token}` });
  offsetMs += 86_400_000 + 1000;
  assert.is(await s.closed, CLOSE_ACCESS_ENDED);
});

t.run();
