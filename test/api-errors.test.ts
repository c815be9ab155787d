import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import type { Route } from '../src/http/router';

const t = suite('errors as JSON');
let d: TestDaemon;
let api: ReturnType<typeof client>;
const auth = () => ({ 'wg-control-key': d.key });
t.before(async () => { d = await startTestDaemon(); api = client(d); });
t.after(async () => { await d.stop(); });

t('answers malformed JSON, non-objects and empty bodies with 400', async () => {
  for (const body of ['{"name":', 'null', '[1,2]', '"text"', '42', '']) {
    const r = await call(d.url, 'POST', '/api/servers', body, auth());
    assert.is(r.status, 400, body);
    assert.type(r.json.error, 'string');
    assert.match(r.headers.get('content-type')!, /application\/json/);
  }
});

t('answers a body over 1 MiB with 413, whatever Content-Length says', async () => {
  const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
  const r = await call(d.url, 'POST', '/api/servers', big, auth());
  assert.is(r.status, 413);
  assert.is(r.json.code, 'WGCP_BODY_TOO_LARGE');
  // Chunked: no Content-Length to trust, the limit still holds.
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request(`${d.url}/api/servers`, { method: 'POST', headers: { ...auth(), 'Transfer-Encoding': 'chunked' } }, (res) => { res.resume(); resolve(res.statusCode!); });
    req.on('error', reject);
    for (let i = 0; i < 20; i++) req.write('x'.repeat(64 * 1024));
    req.end();
  });
  assert.is(status, 413);
});

t('answers unknown routes with 404 and wrong methods with 405 and Allow', async () => {
  const r = await api.get('/api/nothing');
  assert.is(r.status, 404);
  assert.equal(r.json, { error: 'not found', code: 'WGCP_ROUTE_NOT_FOUND' });
  const m = await call(d.url, 'PATCH', '/api/servers/1', '{}', auth());
  assert.is(m.status, 405);
  assert.is(m.headers.get('allow'), 'DELETE, GET, PUT');
  assert.equal(m.json, { error: 'method not allowed', code: 'WGCP_METHOD_NOT_ALLOWED' });
});

t('gives every error body string values only', async () => {
  const r = await api.post('/api/servers', { name: 5 });
  assert.is(r.status, 400);
  for (const v of Object.values(r.json)) assert.type(v, 'string');
});

t('gives every error body a code: field errors, refusals, missing things and credentials alike', async () => {
  const answers = [
    await api.post('/api/servers', { name: 5 }), await api.get('/api/servers/999'), await api.get('/api/nothing'),
    await call(d.url, 'GET', '/api/servers'), await call(d.url, 'POST', '/api/servers', '{"name":', auth()),
  ];
  assert.equal(answers.map((r) => [r.status, r.json.code]), [
    [400, 'WGCP_FIELD_INVALID'], [404, 'WGCP_SERVER_NOT_FOUND'], [404, 'WGCP_ROUTE_NOT_FOUND'], [401, 'WGCP_UNAUTHORIZED'], [400, 'WGCP_MALFORMED_JSON'],
  ]);
  assert.is(answers[0].json.field, 'name');
});

t('turns an unexpected exception into a generic 500 and keeps serving', async () => {
  const store = d.daemon.app.store;
  const original = store.servers.list;
  store.servers.list = () => { throw new Error('disk on fire: secret detail'); };
  try {
    const r = await api.get('/api/servers');
    assert.is(r.status, 500);
    assert.equal(r.json, { error: 'internal server error', code: 'WGCP_INTERNAL' });
    assert.match(r.headers.get('x-request-id')!, /^[0-9a-f]{12}$/);
    const next = (await api.get('/api/nothing')).headers.get('x-request-id')!;
    assert.is.not(next, r.headers.get('x-request-id'));
  } finally {
    store.servers.list = original;
  }
  assert.is((await api.get('/api/servers')).status, 200);
});

t('logs a 500 with its request id and never a credential', async () => {
  const lines: string[] = [];
  const { createLogger } = await import('../src/log');
  const { createRequestHandler } = await import('../src/http/server');
  const routes: Route[] = [{ method: 'GET', path: '/boom', auth: 'none', handler: () => { throw new Error('kaboom'); } }];
  const handler = createRequestHandler({ routes, log: createLogger('debug', (l) => lines.push(l)), bodyLimit: 10, logRequests: true, authenticate: () => ({ kind: 'apikey' as const, id: null, name: 'test', role: 'admin' as const, address: null }) });
  const server = http.createServer(handler).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  const r = await call(`http://127.0.0.1:${port}`, 'GET', '/boom', undefined, { 'wg-control-key': 'wgk_supersecret', Authorization: 'Bearer wgt_alsosecret' });
  server.close();
  assert.is(r.status, 500);
  const failure = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed');
  assert.ok(failure, 'a failure line is logged');
  assert.is(failure.requestId, r.headers.get('x-request-id'));
  assert.is(failure.error, 'kaboom');
  const access = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request');
  assert.is(access.route, '/boom');
  assert.is(access.status, 500);
  assert.not.ok(lines.join('').includes('supersecret'));
  assert.not.ok(lines.join('').includes('alsosecret'));
});

t.run();
