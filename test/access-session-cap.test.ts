// Page sessions are capped per key or token, never for the whole router: one credential
// opening many sessions ends only its own oldest. Real sign-ins over HTTP.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { SESSION_MAX_PER_CREDENTIAL } from '../src/store/sessions';

const t = suite('access: live sessions capped per credential');
let d: TestDaemon;

t.before(async () => { d = await startTestDaemon(); });
t.after(async () => { await d.stop(); });

const json = { 'Content-Type': 'application/json' };
async function signIn(key: string): Promise<string> {
  const r = await call(d.url, 'POST', '/api/session', { key }, json);
  assert.is(r.status, 204, r.text);
  return (r.headers.get('set-cookie') ?? '').split(';')[0];
}
const live = async (cookie: string) => (await call(d.url, 'GET', '/api/session', undefined, { Cookie: cookie })).json.signedIn as boolean;

t('a viewer opening many sessions signs nobody else out; past the cap its own oldest end', async () => {
  const viewer = (await client(d).post('/api/apikeys', { name: 'many-tabs', role: 'viewer' })).json.key;
  const operator = (await client(d).post('/api/apikeys', { name: 'desk', role: 'operator' })).json.key;
  const admin = await signIn(d.key);
  const desk = await signIn(operator);
  const opened: string[] = [];
  for (let i = 0; i < SESSION_MAX_PER_CREDENTIAL + 100; i++) opened.push(await signIn(viewer));
  assert.is(await live(admin), true, 'the admin is still signed in');
  assert.is(await live(desk), true, 'the operator is still signed in');
  const states = await Promise.all(opened.map(live));
  assert.equal(states.filter(Boolean).length, SESSION_MAX_PER_CREDENTIAL);
  assert.equal(states.slice(-SESSION_MAX_PER_CREDENTIAL).every(Boolean), true, 'the newest are the ones kept');
});

t.run();
