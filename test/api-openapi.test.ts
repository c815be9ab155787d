import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { answerProblems, documentedAnswer } from './helpers/answer-check';
import { generateKeyPair, generatePresharedKey } from '../src/wg/keys';

const t = suite('OpenAPI document');
let d: TestDaemon;
t.before(async () => { d = await startTestDaemon({ env: { SERVER_SALT: 'openapi-suite-salt-0123456789' } }); });
t.after(async () => { await d.stop(); });

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function documented(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  const ops: string[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const m of Object.keys(item)) if (METHODS.includes(m)) ops.push(`${m.toUpperCase()} ${p}`);
  }
  return ops.sort();
}

t('is served as OpenAPI 3.1 behind the credentials', async () => {
  assert.is((await call(d.url, 'GET', '/api/openapi.json')).status, 401);
  const r = await call(d.url, 'GET', '/api/openapi.json', undefined, { 'wg-control-key': d.key });
  assert.is(r.status, 200);
  assert.is(r.json.openapi, '3.1.0');
  assert.is(r.json.info.version, '1.0');
});

t('describes exactly the routes the router serves', async () => {
  const doc = (await call(d.url, 'GET', '/api/openapi.json', undefined, { 'wg-control-key': d.key })).json;
  const served = d.daemon.routes.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`).sort();
  assert.equal(documented(doc), served);
});

t('every route declares its shapes where it is defined (doc)', () => {
  const apart = d.daemon.routes.filter((r) => !r.doc).map((r) => `${r.method} ${r.path}`).sort();
  assert.equal(apart, []);
});

t('declares every path parameter and a response for every operation', async () => {
  const doc = (await call(d.url, 'GET', '/api/openapi.json', undefined, { 'wg-control-key': d.key })).json;
  for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    const needed = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    for (const m of Object.keys(item).filter((k) => METHODS.includes(k))) {
      const params = [...(item.parameters ?? []), ...(item[m].parameters ?? [])].filter((x: { in: string }) => x.in === 'path').map((x: { name: string }) => x.name);
      for (const n of needed) assert.ok(params.includes(n), `${m} ${p} declares {${n}}`);
      assert.ok(Object.keys(item[m].responses).length > 0, `${m} ${p} has responses`);
    }
  }
});

t('resolves every schema reference', async () => {
  const doc = (await call(d.url, 'GET', '/api/openapi.json', undefined, { 'wg-control-key': d.key })).json;
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]);
  assert.ok(refs.length > 10);
  for (const r of refs) assert.ok(doc.components.schemas[r], `schema ${r} exists`);
});

/** Real answers of routes with described resources, each with the route (OpenAPI path) that documents it. */
async function realAnswers(): Promise<{ method: string; path: string; status: number; json: unknown }[]> {
  const api = client(d);
  const server = (await api.post('/api/servers', { name: 'docs', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json;
  const peer = (await api.post(`/api/servers/${server.id}/peers`, { name: 'phone', dataLimitGB: 5, schedule: { timezone: 'UTC', windows: [{ days: ['mon'], from: '08:00', to: '18:00' }] } })).json;
  const hook = await api.post(`/api/servers/${server.id}/webhooks`, { name: 'hook', url: 'https://hooks.example.com/x', secret: 's', customHeaders: { Authorization: 'Bearer x' } });
  const key = await api.post('/api/apikeys', { name: 'script', role: 'viewer' });
  const token = await api.post(`/api/servers/${server.id}/tokens`, undefined);
  assert.is((await call(d.url, 'POST', '/api/v1/provision', { token: token.json.token, hwid: 'hw-openapi-1' })).status, 200);
  const device = (await api.get('/api/devices')).json[0];
  const forward = await api.post(`/api/devices/${device.id}/forwards`, { protocol: 'tcp', listenPort: 8022, targetPort: 22 });
  const share = await api.post(`/api/peers/${peer.id}/share`, { expiresInHours: 2 });
  const link = await api.post('/api/site-links', {
    name: 'hq', privateKey: generateKeyPair().privateKey, address: '10.91.0.2', peerPublicKey: generateKeyPair().publicKey,
    presharedKey: generatePresharedKey(), endpoint: 'hq.example.com:51820', routes: ['10.92.0.0/24'],
  });
  const at = (method: string, path: string, status: number, json: unknown) => ({ method, path, status, json });
  return [
    at('GET', '/api/servers/{id}', 200, (await api.get(`/api/servers/${server.id}`)).json),
    at('GET', '/api/peers/{id}', 200, (await api.get(`/api/peers/${peer.id}`)).json),
    at('POST', '/api/servers/{id}/webhooks', 201, hook.json),
    at('GET', '/api/servers/{id}/webhooks', 200, (await api.get(`/api/servers/${server.id}/webhooks`)).json),
    at('POST', '/api/apikeys', 201, key.json),
    at('GET', '/api/apikeys', 200, (await api.get('/api/apikeys')).json),
    at('POST', '/api/servers/{id}/tokens', 201, token.json),
    at('GET', '/api/servers/{id}/tokens', 200, (await api.get(`/api/servers/${server.id}/tokens`)).json),
    at('GET', '/api/devices', 200, (await api.get('/api/devices')).json),
    at('POST', '/api/devices/{id}/forwards', 201, forward.json),
    at('GET', '/api/devices/{id}/forwards', 200, (await api.get(`/api/devices/${device.id}/forwards`)).json),
    at('POST', '/api/peers/{id}/share', 201, share.json),
    at('GET', '/api/peers/{id}/shares', 200, (await api.get(`/api/peers/${peer.id}/shares`)).json),
    at('POST', '/api/site-links', 201, link.json),
    at('GET', '/api/site-links', 200, (await api.get('/api/site-links')).json),
    at('PUT', '/api/site-links/{id}', 200, (await api.put(`/api/site-links/${link.json.id}`, { reachableFrom: [] })).json),
  ];
}

t('a real answer of each described resource is what its route documents, field for field', async () => {
  const doc = (await call(d.url, 'GET', '/api/openapi.json', undefined, { 'wg-control-key': d.key })).json;
  const problems: string[] = [];
  for (const a of await realAnswers()) {
    assert.ok(Array.isArray(a.json) ? a.json.length > 0 : a.json, `${a.method} ${a.path} answered`);
    problems.push(...answerProblems(documentedAnswer(doc, a.method, a.path, a.status), a.json, doc).map((p) => `${a.method} ${a.path}: ${p}`));
  }
  assert.equal(problems, []);
});

t('the check finds a field dropped, one added and one of the wrong type (it is not blind)', async () => {
  const doc = (await call(d.url, 'GET', '/api/openapi.json', undefined, { 'wg-control-key': d.key })).json;
  const hook = (await client(d).get('/api/servers/1/webhooks')).json[0];
  const schema = documentedAnswer(doc, 'GET', '/api/webhooks/{id}', 200);
  assert.equal(answerProblems(schema, hook, doc), []);
  const { verifySSL: _dropped, ...without } = hook;
  assert.equal(answerProblems(schema, without, doc), ['$.verifySSL: in the schema, not in the answer']);
  assert.equal(answerProblems(schema, { ...hook, extra: 1 }, doc), ['$.extra: in the answer, not in the schema']);
  assert.equal(answerProblems(schema, { ...hook, template: 'teams' }, doc), ['$.template: "teams" is not one of ["default","slack","discord","custom"]']);
});

t.run();
