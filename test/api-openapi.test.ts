import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('OpenAPI document');
let d: TestDaemon;
t.before(async () => { d = await startTestDaemon(); });
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

t.run();
