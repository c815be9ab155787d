// The page's wire types (web/src/types.ts, and types.generated.ts written from the resource
// descriptions) against the API they describe: a real wgcpd's answers and its OpenAPI
// document. A field the API returns and the page's types lack (as IPv6 once went missing)
// fails here, and so does a page field the API has not got; the generated file must be what
// the descriptions give now.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { differencesFromSchema, readShapes, undeclaredInAnswer, type Shape } from './web-type-shapes';
import { REPO } from './web-support';
import { PAGE_TYPES_FILE, pageTypesText } from '../src/resources/page-types';

const t = suite('the page\'s wire types hold every field the API returns');

const TYPES = path.join(REPO, 'web', 'src', 'types.ts');
let d: TestDaemon;
let api: ReturnType<typeof client>;
let doc: any;
let cookie = '';
const GENERATED = path.join(REPO, PAGE_TYPES_FILE);
const shapes = readShapes(TYPES, GENERATED);
const answers = new Map<string, unknown>();

t.before(async () => {
  d = await startTestDaemon({ env: { SERVER_SALT: 'types-suite-salt-0123456789' } });
  api = client(d);
  doc = (await api.get('/api/openapi.json')).json;
  const server = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json;
  const peer = (await api.post(`/api/servers/${server.id}/peers`, { name: 'phone', dataLimitGB: 5, expiresAt: '2099-01-01T00:00:00Z', schedule: { timezone: 'Europe/Berlin', windows: [{ days: ['mon'], from: '08:00', to: '18:00' }] } })).json;
  const hook = (await api.post(`/api/servers/${server.id}/webhooks`, { name: 'hook', url: 'http://127.0.0.1:9/x', secret: 's3cret' })).json;
  await api.post(`/api/webhooks/${hook.id}/test`, undefined);
  await api.post('/api/settings/smtp', { enabled: false, server: 'mail.example.com', port: 587, fromEmail: 'vpn@example.com' });
  await api.post('/api/apikeys', { name: 'script' });
  await api.post('/api/access-tokens', { name: 'prometheus', expiresInDays: 30 });
  const token = (await api.post(`/api/servers/${server.id}/tokens`, undefined)).json.token;
  assert.is((await call(d.url, 'POST', '/api/v1/provision', { token, hwid: 'hw-types-1' })).status, 200);
  const device = (await api.get('/api/devices')).json[0];
  await api.post(`/api/devices/${device.id}/forwards`, { protocol: 'tcp', listenPort: 8022, targetPort: 22 });
  const now = Math.floor(Date.now() / 1000);
  d.daemon.app.store.db.prepare('INSERT INTO traffic_5m (t, subject, rx_bytes, tx_bytes) VALUES (?, ?, ?, ?)').run(now - (now % 300) - 300, peer.id, 1000, 2000);
  const signIn = await call(d.url, 'POST', '/api/session', { key: d.key }, { 'Content-Type': 'application/json', Origin: d.url });
  cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];

  answers.set('Server', (await api.get(`/api/servers/${server.id}`)).json);
  answers.set('Peer', (await api.get(`/api/peers/${peer.id}`)).json);
  answers.set('ServerStats', (await api.get(`/api/servers/${server.id}/stats`)).json);
  answers.set('Stats', (await api.get('/api/stats')).json);
  answers.set('Webhook', (await api.get(`/api/servers/${server.id}/webhooks`)).json);
  answers.set('Delivery', (await api.get(`/api/webhooks/${hook.id}/deliveries`)).json);
  assert.ok((answers.get('Delivery') as unknown[]).length >= 1, 'the test send was logged');
  answers.set('Smtp', (await api.get('/api/settings/smtp')).json);
  answers.set('Credential', [...(await api.get('/api/apikeys')).json, ...(await api.get('/api/access-tokens')).json]);
  answers.set('RegistrationToken', (await api.get(`/api/servers/${server.id}/tokens`)).json);
  answers.set('Device', (await api.get('/api/devices')).json);
  answers.set('PortForward', (await api.get(`/api/devices/${device.id}/forwards`)).json);
  answers.set('Health', (await call(d.url, 'GET', '/healthz')).json);
  answers.set('UsageSeries', (await api.get(`/api/peers/${peer.id}/usage?step=5m`)).json);
  answers.set('SessionState', (await call(d.url, 'GET', '/api/session', undefined, { Cookie: cookie })).json);
  answers.set('SignedIn', (await api.get('/api/sessions')).json.sessions);
  assert.is((await api.post(`/api/peers/${peer.id}/share`, { expiresInHours: 2 })).status, 201);
  answers.set('Share', (await api.get(`/api/peers/${peer.id}/shares`)).json);
  const audit = (await api.get('/api/audit')).json;
  assert.ok(audit.entries.length >= 5, 'the changes above were audited');
  answers.set('AuditEntry', audit.entries);
});
t.after(async () => { await d?.stop(); });

// Where each interface's schema is, when the document names it another way than by its doc comment.
const schemaAt: Record<string, () => object> = {
  UsageSeries: () => doc.paths['/api/peers/{id}/usage'].get.responses['200'].content['application/json'].schema,
  SessionState: () => doc.paths['/api/session'].get.responses['200'].content['application/json'].schema,
  SignedIn: () => doc.paths['/api/sessions'].get.responses['200'].content['application/json'].schema.properties.sessions.items,
  AuditEntry: () => doc.paths['/api/audit'].get.responses['200'].content['application/json'].schema.properties.entries.items,
};
// Interfaces with no HTTP answer to hold them to, and why.
const NOT_AN_ANSWER: Record<string, string> = { PeerUsage: 'an event stream message (docs/events.md), not an HTTP answer' };
const shape = (name: string): Shape => shapes.get(name)!.shape;

t('the generated types are what the descriptions give now (npm run build writes them again)', () => {
  assert.fixture(fs.readFileSync(GENERATED, 'utf8'), pageTypesText());
  assert.ok(shapes.has('Peer') && !/interface Peer\b/.test(fs.readFileSync(TYPES, 'utf8')), 'Peer is generated, not written by hand');
});

t('every interface of the page\'s types is held to a real answer or a schema', () => {
  for (const [name, { doc: comment }] of shapes) {
    if (NOT_AN_ANSWER[name]) continue;
    assert.ok(answers.has(name), `${name} (${comment}) has a real answer in this suite`);
  }
  assert.ok(answers.size >= 14, `${answers.size} answers read`);
});

t('every field of a real answer is declared in the page\'s types, nested records included', () => {
  const missing: string[] = [];
  for (const [name, answer] of answers) missing.push(...undeclaredInAnswer(shape(name), answer, name));
  assert.equal(missing, []);
  // The fields that went missing once are in the answers read here.
  const server = answers.get('Server') as Record<string, unknown>;
  assert.match(String(server.address6), /^fd[0-9a-f:]+\/64$/);
  assert.match(String((answers.get('Peer') as Record<string, unknown>).ip6), /^fd[0-9a-f:]+$/);
  assert.is((answers.get('Health') as Record<string, unknown>).kernel, 'off');
});

t('the page\'s types match the OpenAPI schema named beside each, both ways', () => {
  const differences: string[] = [];
  let compared = 0;
  for (const [name, { shape: s, doc: comment }] of shapes) {
    const named = /^schema (\w+)/.exec(comment)?.[1];
    const schema = named ? doc.components.schemas[named] : schemaAt[name]?.();
    if (named) assert.ok(schema, `${name}: the document has the schema ${named}`);
    if (!schema) continue;
    // A page field the schema lacks passes when a real answer carries it (the document is behind).
    const seen = new Set(undeclaredInAnswer({ fields: new Map() }, answers.get(name), name).map((f) => f.replace(/\[\d+\]/g, '')));
    differences.push(...differencesFromSchema(s, schema, doc, name).filter((x) => !seen.has(x.split(' ')[0])));
    compared++;
  }
  assert.equal(differences, []);
  assert.ok(compared >= 12, `${compared} interfaces compared with a schema`);
});

t('the comparison finds a field left out (the check is not blind)', () => {
  const server = shape('Server');
  const without: Shape = { fields: new Map([...server.fields].filter(([k]) => k !== 'address6')) };
  assert.equal(undeclaredInAnswer(without, answers.get('Server'), 'Server'), ['Server.address6']);
  assert.equal(differencesFromSchema(without, doc.components.schemas.Server, doc, 'Server'), ['Server.address6 is in the schema, not in the page\'s type']);
  const peer = shape('Peer');
  const serverWithThinPeers: Shape = { fields: new Map([...server.fields, ['peers', { fields: new Map([...peer.fields].filter(([k]) => k !== 'ip6')) }]]) };
  const found = undeclaredInAnswer(serverWithThinPeers, answers.get('Server'), 'Server');
  assert.ok(found.length >= 1 && found.every((f) => /^Server\.peers\[\d+\]\.ip6$/.test(f)), found.join(', '));
});

t.run();
