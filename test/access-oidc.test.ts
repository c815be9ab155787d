// Single sign-on against a real OpenID provider (oidc-provider on loopback, behind a proxy
// that can rewrite its ID tokens): who gets which role, who gets none, and each check of
// the provider's answer refusing what it should. The browser's part is driven over HTTP
// here; test/web-oidc.test.ts does it in Chromium.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { freePort, signInAtProvider, startTestProvider, type Tamper, type TestProvider } from './helpers/oidc-provider';
import { loadConfig, ConfigError } from '../src/config';
import { parseRoleMapping, roleOfClaims } from '../src/access/oidc-roles';
import { SESSION_MAX_PER_CREDENTIAL } from '../src/store/sessions';

const t = suite('single sign-on (OIDC): roles from the provider\'s claims, and every check of its answer');

const ACCOUNTS = {
  alice: { email: 'alice@example.com', groups: ['staff', 'wgcp-admins'] },
  olga: { email: 'olga@example.com', groups: ['wgcp-ops'] },
  bob: { email: 'bob@contractor.example', groups: ['contractors'] },
};
const ROLES = 'admin=groups:wgcp-admins;operator=groups:wgcp-ops';

let provider: TestProvider;
let d: TestDaemon;

t.before(async () => {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  provider = await startTestProvider(publicUrl, ACCOUNTS);
  const secretFile = path.join(tempDir('wgcp-oidc-'), 'client-secret');
  fs.writeFileSync(secretFile, `${provider.clientSecret}\n`, { mode: 0o600 });
  d = await startTestDaemon({ env: {
    WGCP_LISTEN: `127.0.0.1:${port}`, WGCP_PUBLIC_URL: publicUrl, WGCP_OIDC_ISSUER: provider.issuer,
    WGCP_OIDC_CLIENT_ID: provider.clientId, WGCP_OIDC_CLIENT_SECRET_FILE: secretFile, WGCP_OIDC_ROLES: ROLES,
    WGCP_OIDC_SCOPES: 'openid email groups',
  } });
});
t.after(async () => { await d?.stop(); await provider?.close(); });
t.before.each(() => { provider.tamper = null; });

/** The daemon's answer to the provider's redirect back, as the browser that started the sign-in. */
const openCallback = (url: string, cookie: string) => fetch(url, { redirect: 'manual', headers: { cookie } });
const sessionCookie = (res: Response): string | null => {
  const line = res.headers.getSetCookie().find((c) => c.startsWith('wgcp_session='));
  return line ? line.split(';')[0] : null;
};
const session = async (cookie: string) => (await call(d.url, 'GET', '/api/session', undefined, { cookie })).json;
const auditRows = async (action: string) => (await call(d.url, 'GET', `/api/audit?action=${action}`, undefined, { 'wg-control-key': d.key })).json.entries;

async function signIn(login: string): Promise<string> {
  const back = await signInAtProvider(d.url, login);
  const res = await openCallback(back.callbackUrl, back.pendingCookie);
  assert.is(res.status, 303, await res.text());
  assert.is(res.headers.get('location'), '../../');
  return sessionCookie(res)!;
}

/** A sign-in whose callback is refused: 400 with the page saying so, and no session. */
async function refused(back: { callbackUrl: string; pendingCookie: string }, saying: RegExp): Promise<void> {
  const res = await openCallback(back.callbackUrl, back.pendingCookie);
  const text = await res.text();
  assert.is(res.status, 400, text);
  assert.match(text, /Sign-in failed/);
  assert.match(text, saying, text.slice(-600));
  assert.is(sessionCookie(res), null);
}

t('a person in the admins group signs in as admin; the session names them and the audit log too', async () => {
  const cookie = await signIn('alice');
  const s = await session(cookie);
  assert.equal([s.signedIn, s.kind, s.role, s.subject, s.email], [true, 'person', 'admin', 'alice', 'alice@example.com']);
  const row = (await auditRows('session.sign-in')).find((e: { actor: { kind: string } }) => e.actor.kind === 'person');
  assert.is(row.actor.name, 'alice@example.com (alice)');
  assert.equal(row.summary, { subject: 'alice', email: 'alice@example.com', issuer: provider.issuer });
  // Her session acts as her: an admin's route answers.
  assert.is((await call(d.url, 'GET', '/api/sessions', undefined, { cookie })).status, 200);
});

t('a person in the operators group is an operator, refused what only an admin may do', async () => {
  const cookie = await signIn('olga');
  assert.is((await session(cookie)).role, 'operator');
  const r = await call(d.url, 'GET', '/api/sessions', undefined, { cookie });
  assert.is(r.status, 403);
  assert.is(r.json.role, 'admin');
});

t('a person whose groups map to no role is refused with a page saying so, not signed in as a viewer', async () => {
  const back = await signInAtProvider(d.url, 'bob');
  const res = await openCallback(back.callbackUrl, back.pendingCookie);
  const text = await res.text();
  assert.is(res.status, 403);
  assert.match(res.headers.get('content-type')!, /text\/html/);
  assert.match(text, /No access to this router/);
  assert.match(text, /bob@contractor\.example/);
  assert.is(sessionCookie(res), null);
  const row = (await auditRows('session.sign-in-failed')).find((e: { summary: { reason: string } }) => e.summary.reason === 'no role for this person');
  assert.is(row.actor.name, 'bob@contractor.example (bob)');
});

t('a tampered state is refused', async () => {
  const back = await signInAtProvider(d.url, 'alice');
  const url = new URL(back.callbackUrl);
  url.searchParams.set('state', `${url.searchParams.get('state')}x`);
  await refused({ ...back, callbackUrl: url.href }, /unexpected &#34;state&#34; response parameter value/);
});

t('a callback from a browser that did not start the sign-in is refused (no login CSRF)', async () => {
  const back = await signInAtProvider(d.url, 'alice');
  await refused({ ...back, pendingCookie: '' }, /not started from this browser/);
});

t('the same callback twice: the second is refused', async () => {
  const back = await signInAtProvider(d.url, 'alice');
  assert.is((await openCallback(back.callbackUrl, back.pendingCookie)).status, 303);
  await refused(back, /used already/);
});

t('a code used once already is refused under another sign-in\'s state (the provider and PKCE refuse it)', async () => {
  const first = await signInAtProvider(d.url, 'alice');
  assert.is((await openCallback(first.callbackUrl, first.pendingCookie)).status, 303);
  const second = await signInAtProvider(d.url, 'alice');
  const replay = new URL(second.callbackUrl);
  replay.searchParams.set('code', new URL(first.callbackUrl).searchParams.get('code')!);
  await refused({ ...second, callbackUrl: replay.href }, /the provider refused: invalid_grant/);
});

const tampers: [Tamper, RegExp][] = [
  ['nonce', /unexpected ID Token &#34;nonce&#34; claim value/], ['expired', /&#34;exp&#34; \(expiration time\)/], ['audience', /&#34;aud&#34; \(audience\)/], ['signature', /JWT signature verification failed/],
];
for (const [how, saying] of tampers) {
  t(`an ID token with ${how === 'nonce' ? 'a wrong nonce' : how === 'expired' ? 'an expiry past' : how === 'audience' ? 'another audience' : 'a signature by a key the provider does not publish'} is refused`, async () => {
    const back = await signInAtProvider(d.url, 'alice');
    provider.tamper = how;
    await refused(back, saying);
  });
}

t('an admin sees who is signed in and ends every session of a person', async () => {
  const olga = await signIn('olga');
  const list = (await call(d.url, 'GET', '/api/sessions', undefined, { 'wg-control-key': d.key })).json.sessions;
  const hers = list.filter((s: { subject: string | null }) => s.subject === 'olga');
  assert.ok(hers.length >= 1);
  assert.equal([hers[0].kind, hers[0].name, hers[0].role, hers[0].email], ['person', 'olga@example.com (olga)', 'operator', 'olga@example.com']);
  const ended = await call(d.url, 'DELETE', '/api/people/olga/sessions', undefined, { 'wg-control-key': d.key });
  assert.is(ended.status, 200);
  assert.is(ended.json.ended, hers.length);
  assert.is((await session(olga)).signedIn, false);
  assert.is((await call(d.url, 'GET', '/api/servers', undefined, { cookie: olga })).status, 401);
  const row = (await auditRows('person.sessions-end'))[0];
  assert.equal([row.targetType, row.targetId, row.summary.ended], ['person', 'olga', hers.length]);
});

t('a person signing in past the cap ends only their own oldest sessions, never another person\'s or a key\'s', async () => {
  const olga = await signIn('olga');
  const key = await call(d.url, 'POST', '/api/session', { key: d.key }, { 'content-type': 'application/json' });
  const keyCookie = key.headers.getSetCookie()[0].split(';')[0];
  const alices: string[] = [];
  for (let i = 0; i <= SESSION_MAX_PER_CREDENTIAL; i++) alices.push(await signIn('alice'));
  assert.is((await session(alices[0])).signedIn, false, 'her oldest went');
  assert.is((await session(alices[SESSION_MAX_PER_CREDENTIAL])).signedIn, true);
  assert.is((await session(olga)).signedIn, true, 'another person\'s stayed');
  assert.is((await session(keyCookie)).signedIn, true, 'a key\'s stayed');
});

t('signing out ends the wgcp session and names the provider\'s sign-out, which comes back to the page', async () => {
  const cookie = await signIn('alice');
  const out = await call(d.url, 'DELETE', '/api/session', undefined, { cookie, 'sec-fetch-site': 'same-origin' });
  assert.is(out.status, 200);
  const end = new URL(out.json.endSessionUrl);
  assert.is(end.origin, provider.issuer);
  assert.is(end.searchParams.get('post_logout_redirect_uri'), `${d.url}/`);
  assert.is((await session(cookie)).signedIn, false);
});

t('the page offers single sign-on when signed out', async () => {
  const s = (await call(d.url, 'GET', '/api/session')).json;
  assert.equal(s, { signedIn: false, singleSignOn: true, keySignIn: true });
});

t('role rules: the highest matching role wins; an unverified email or another domain gives nothing', () => {
  const rules = parseRoleMapping('viewer=email_domain:example.com; admin=groups:wgcp-admins ;operator=roles:ops');
  assert.is(roleOfClaims(rules, { sub: 'a', email: 'a@example.com', groups: ['wgcp-admins'] }), 'admin');
  assert.is(roleOfClaims(rules, { sub: 'a', email: 'a@Example.COM' }), 'viewer');
  assert.is(roleOfClaims(rules, { sub: 'a', email: 'a@example.com', email_verified: false }), null);
  assert.is(roleOfClaims(rules, { sub: 'a', email: 'a@example.com.evil.test' }), null);
  assert.is(roleOfClaims(rules, { sub: 'a', roles: 'ops' }), 'operator');
  assert.throws(() => parseRoleMapping('root=groups:x'), /role must be one of viewer, operator, admin/);
  assert.throws(() => parseRoleMapping(' ; '), /at least one rule/);
});

t('settings: an issuer without a public URL or roles, or key sign-in off without single sign-on, do not start', () => {
  const base = { WGCP_DATA_DIR: tempDir() };
  assert.throws(() => loadConfig({ ...base, WGCP_OIDC_ISSUER: 'https://id.example.com', WGCP_OIDC_CLIENT_ID: 'x', WGCP_OIDC_ROLES: ROLES }), (e: Error) => e instanceof ConfigError && /WGCP_PUBLIC_URL/.test(e.message));
  assert.throws(() => loadConfig({ ...base, WGCP_PUBLIC_URL: 'https://vpn.example.com', WGCP_OIDC_ISSUER: 'https://id.example.com', WGCP_OIDC_CLIENT_ID: 'x' }), /WGCP_OIDC_ROLES/);
  assert.throws(() => loadConfig({ ...base, WGCP_PUBLIC_URL: 'https://vpn.example.com', WGCP_OIDC_ISSUER: 'http://id.example.com', WGCP_OIDC_CLIENT_ID: 'x', WGCP_OIDC_ROLES: ROLES }), /https/);
  assert.throws(() => loadConfig({ ...base, WGCP_PAGE_KEY_SIGN_IN: 'off' }), /needs single sign-on/);
  const c = loadConfig({ ...base, WGCP_PUBLIC_URL: 'https://vpn.example.com/wg/', WGCP_OIDC_ISSUER: 'https://id.example.com', WGCP_OIDC_CLIENT_ID: 'x', WGCP_OIDC_ROLES: ROLES });
  assert.is(c.oidc!.redirectUri, 'https://vpn.example.com/wg/api/oidc/callback');
  assert.is(c.oidc!.scopes, 'openid email profile');
});

t.run();

// Key sign-in turned off for the page: the page's key form is refused, the API and the CLI are not.
const off = suite('single sign-on: key sign-in off for the page');
let d2: TestDaemon;
off.before(async () => {
  const secretFile = path.join(tempDir('wgcp-oidc-'), 'client-secret');
  fs.writeFileSync(secretFile, 'x'.repeat(20), { mode: 0o600 });
  d2 = await startTestDaemon({ env: {
    WGCP_PUBLIC_URL: 'http://127.0.0.1:9', WGCP_OIDC_ISSUER: 'http://127.0.0.1:9', WGCP_OIDC_CLIENT_ID: 'c',
    WGCP_OIDC_CLIENT_SECRET_FILE: secretFile, WGCP_OIDC_ROLES: ROLES, WGCP_PAGE_KEY_SIGN_IN: 'off',
  } });
});
off.after(async () => { await d2?.stop(); });
off('the page\'s key sign-in is refused with 403 saying to use single sign-on; the key still works in its header', async () => {
  const r = await call(d2.url, 'POST', '/api/session', { key: d2.key }, { 'content-type': 'application/json' });
  assert.is(r.status, 403);
  assert.match(r.json.error, /key sign-in is turned off for the page: sign in with single sign-on/);
  assert.is((await call(d2.url, 'GET', '/api/servers', undefined, { 'wg-control-key': d2.key })).status, 200);
  assert.equal((await call(d2.url, 'GET', '/api/session')).json, { signedIn: false, singleSignOn: true, keySignIn: false });
});
off.run();
