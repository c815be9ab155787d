// What each role sees of a webhook, through HTTP with real keys against a real daemon: its
// URL's token and its headers' values are the admin's alone, wherever a webhook shows.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { eventually } from './helpers/receiver';

const t = suite('access: what each role sees of a webhook');
let d: TestDaemon;
const keys: Record<string, string> = {};
const SLACK_TOKEN = 'T0AAAAAAA/B0BBBBBBB/slackSecretPathToken';
const HEADER_VALUE = 'Bearer header-credential-value';
const BODY_SECRET = 'body-credential-value';
let sid = 0;
let hookId = 0;

const as = (role: string) => client({ url: d.url, key: keys[role] });

t.before(async () => {
  d = await startTestDaemon();
  const admin = client(d);
  for (const role of ['viewer', 'operator']) keys[role] = (await admin.post('/api/apikeys', { name: role, role })).json.key;
  keys.admin = d.key;
  sid = (await admin.post('/api/servers', { name: 'office', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  await admin.post(`/api/servers/${sid}/peers`, { name: 'phone' });
  const hook = await admin.post(`/api/servers/${sid}/webhooks`, {
    name: 'team chat', url: `https://user:pw@hooks.slack.com:8443/services/${SLACK_TOKEN}?x=1`, template: 'custom',
    customBody: `{"text":"{{event}}","auth":"${BODY_SECRET}"}`, customHeaders: { Authorization: HEADER_VALUE, 'X-Team': 'ops' },
  });
  assert.is(hook.status, 201, hook.text);
  hookId = hook.json.id;
});
t.after(async () => { await d.stop(); });

const headersOf = (w: { customHeaders: number[] }) => JSON.parse(Buffer.from(w.customHeaders).toString('utf8'));

t('a viewer and an operator see the scheme and host, the header names and masks; never user:password@', async () => {
  for (const role of ['viewer', 'operator']) {
    const w = (await as(role).get(`/api/webhooks/${hookId}`)).json;
    assert.is(w.url, 'https://hooks.slack.com:8443/********', role);
    assert.equal(headersOf(w), { Authorization: '********', 'X-Team': '********' }, role);
    assert.is(w.customBody, '********', role);
    assert.is(w.template, 'custom', role);
    assert.is(w.name, 'team chat', role);
  }
});

t('an admin sees the webhook whole', async () => {
  const w = (await as('admin').get(`/api/webhooks/${hookId}`)).json;
  assert.is(w.url, `https://user:pw@hooks.slack.com:8443/services/${SLACK_TOKEN}?x=1`);
  assert.equal(headersOf(w), { Authorization: HEADER_VALUE, 'X-Team': 'ops' });
  assert.match(w.customBody, BODY_SECRET);
  const listed = (await as('admin').get(`/api/servers/${sid}`)).json.webhooks[0];
  assert.is(listed.url, w.url);
});

const secretsIn = (text: string) => [SLACK_TOKEN, 'slackSecretPathToken', HEADER_VALUE, 'header-credential-value', BODY_SECRET, 'user:pw'].filter((s) => text.includes(s));

t('no route a viewer or an operator may read shows the token, a header value or the body', async () => {
  const doc = (await as('admin').get('/api/openapi.json')).json;
  const gets: string[] = [];
  for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    const op = item.get;
    if (!op || op['x-wgcp-role'] === undefined || op['x-wgcp-role'] === 'admin' || p === '/api/events') continue;
    gets.push(p);
  }
  assert.ok(gets.includes('/api/servers') && gets.includes('/api/servers/{id}/webhooks') && gets.includes('/api/webhooks/{id}'), gets.join(' '));
  // One server, one peer, one webhook: every {id} is 1, so each route finds what it names.
  assert.equal([sid, hookId], [1, 1]);
  let shown = 0;
  for (const role of ['viewer', 'operator']) {
    for (const p of gets) {
      for (const q of ['', '?peers=none']) {
        const r = await as(role).get(p.replace('{id}', '1') + q);
        if (r.status === 200) shown++;
        assert.equal(secretsIn(r.text), [], `${role} GET ${p}${q}: ${r.text.slice(0, 200)}`);
      }
    }
  }
  assert.ok(shown > 20, `routes answered: ${shown}`);
  assert.equal(secretsIn((await as('admin').get('/api/servers')).text).length > 0, true, 'the admin\'s answer holds them: the check can fail');
});

t('the live stream a viewer receives carries no webhook credentials while servers and webhooks change', async () => {
  const ws = new WebSocket(d.url.replace('http:', 'ws:') + '/api/events', { headers: { 'wg-control-key': keys.viewer } });
  const texts: string[] = [];
  ws.on('message', (data) => texts.push(String(data)));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const admin = as('admin');
  await admin.put(`/api/servers/${sid}`, { name: 'office-2' });
  await admin.put(`/api/webhooks/${hookId}`, { name: 'team chat 2' });
  await admin.post(`/api/servers/${sid}/peers`, { name: 'tablet' });
  await eventually('the server and peer events', () => (texts.filter((x) => /serverChanged|peerCreated/.test(x)).length >= 2 ? true : undefined));
  ws.terminate();
  assert.equal(secretsIn(texts.join('\n')), []);
});

t.run();
