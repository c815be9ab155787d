// A change reads the state it changes inside its transaction: a request whose body arrives
// slowly is applied to the state as it stands when the body is complete, never to a copy
// read before it.
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('a slow request body meets the state as it is when it completes');

let d: TestDaemon;
let api: ReturnType<typeof client>;
t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
});
t.after(async () => { await d.stop(); });

/**
 * Resolves once the daemon's handler of the next such request listens for its body: it has
 * been routed, authenticated and has done whatever it does before the body, and now reads it.
 * (The test daemon runs in this process; Node announces each request it starts serving.)
 */
function handlerReadingBody(method: string, path: string): Promise<void> {
  return new Promise((resolve) => {
    const onStart = (message: unknown): void => {
      const req = (message as { request: http.IncomingMessage }).request;
      if (req.method !== method || req.url !== path) return;
      diagnostics.unsubscribe('http.server.request.start', onStart);
      const check = (): void => { if (req.listenerCount('data') + req.listenerCount('readable') > 0) resolve(); else setImmediate(check); };
      check();
    };
    diagnostics.subscribe('http.server.request.start', onStart);
  });
}

/**
 * Sends the head and the first part of a JSON body, and resolves once the daemon reads it;
 * `finish()` sends the rest and resolves with the answer.
 */
async function slowRequest(method: string, path: string, first: string, rest: string) {
  const reading = handlerReadingBody(method, path);
  const req = http.request(`${d.url}${path}`, { method, headers: { 'wg-control-key': d.key, 'Content-Type': 'application/json' } });
  const answer = new Promise<{ status: number; json: any }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  req.write(first);
  await reading;
  return {
    async finish() {
      req.end(rest);
      return answer;
    },
  };
}

t('a peer created while its server moved to another subnet gets an address of the new subnet', async () => {
  const server = await api.post('/api/servers', { name: 'race', endpoint: 'vpn.example.com:51990', mode: 'forward', address: '10.90.0.1/24' });
  assert.is(server.status, 201, server.text);
  const create = await slowRequest('POST', `/api/servers/${server.json.id}/peers`, '{"name":', '"slow"}');
  assert.is((await api.put(`/api/servers/${server.json.id}`, { address: '10.91.0.1/24' })).status, 200);
  const peer = await create.finish();
  assert.is(peer.status, 201, JSON.stringify(peer.json));
  assert.match(peer.json.ip, /^10\.91\.0\.\d+$/);
});

t('a peer create whose server was deleted while its body arrived is a 404 and stores nothing', async () => {
  const server = await api.post('/api/servers', { name: 'gone', endpoint: 'vpn.example.com:51991', mode: 'forward', address: '10.92.0.1/24' });
  const create = await slowRequest('POST', `/api/servers/${server.json.id}/peers`, '{"name":', '"late"}');
  assert.is((await api.del(`/api/servers/${server.json.id}`)).status, 204);
  const peer = await create.finish();
  assert.is(peer.status, 404);
});

t('two webhook updates that overlap keep both changes', async () => {
  const server = await api.post('/api/servers', { name: 'hooks', endpoint: 'vpn.example.com:51992', mode: 'forward', address: '10.93.0.1/24' });
  const hook = await api.post(`/api/servers/${server.json.id}/webhooks`, { name: 'old', url: 'http://127.0.0.1:9/a' });
  assert.is(hook.status, 201, hook.text);
  const slow = await slowRequest('PUT', `/api/webhooks/${hook.json.id}`, '{"url":', '"http://127.0.0.1:9/b"}');
  assert.is((await api.put(`/api/webhooks/${hook.json.id}`, { name: 'new' })).status, 200);
  assert.is((await slow.finish()).status, 200);
  const now = (await api.get(`/api/webhooks/${hook.json.id}`)).json;
  assert.equal([now.name, now.url], ['new', 'http://127.0.0.1:9/b']);
});

t.run();
