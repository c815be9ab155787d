// Passkeys over the API, answered by a software authenticator (test/helpers/soft-authenticator.ts,
// written apart from the WebAuthn library wgcpd uses) and, for people, a real OpenID
// provider on loopback: registering, naming and removing one's own; signing in with one as
// a key's second factor and as a person's first; and each refusal: a challenge used twice,
// another ceremony's challenge, one never given out, another origin or relying party, a
// counter that goes backwards, a removed passkey, another key's passkey, a second factor
// alone, a person whose single sign-on now gives no role. Chromium with its virtual
// authenticator does the page's part (test/web-passkeys.test.ts).
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { freePort, oidcEnv, signInAtProvider, startTestProvider, type TestProvider } from './helpers/oidc-provider';
import { SoftAuthenticator } from './helpers/soft-authenticator';
import { totpCode } from '../src/access/totp';

const t = suite('passkeys: registered, named, removed, and signing in with them, over the API');

const ACCOUNTS = {
  alice: { email: 'alice@example.com', groups: ['wgcp-admins'] },
  olga: { email: 'olga@example.com', groups: ['wgcp-ops'] },
};
const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const ENVIRONMENT_KEY = 'the-environment-key-of-the-passkey-suite';
let provider: TestProvider;
let d: TestDaemon;
/** The page's address: a name (WebAuthn takes no address as relying party), WGCP_PUBLIC_URL. */
let base = '';
let anna = { id: 0, key: '' };
let ben = { id: 0, key: '' };

t.before(async () => {
  const port = await freePort();
  base = `http://localhost:${port}`;
  provider = await startTestProvider(base, ACCOUNTS);
  d = await startTestDaemon({ env: {
    WGCP_LISTEN: `127.0.0.1:${port}`, ...oidcEnv(provider, base, 'admin=groups:wgcp-admins;operator=groups:wgcp-ops'),
    WGCP_API_KEY: ENVIRONMENT_KEY,
  } });
  anna = (await client(d).post('/api/apikeys', { name: 'anna', role: 'operator' })).json;
  ben = (await client(d).post('/api/apikeys', { name: 'ben', role: 'viewer' })).json;
  annaAuth = new SoftAuthenticator(base);
});
t.after(async () => { await d?.stop(); await provider?.close(); });

const json = { 'Content-Type': 'application/json' };
const page = (cookie: string) => ({ Cookie: cookie, Origin: base, ...json });
const cookieOf = (r: { headers: Headers }) => (r.headers.getSetCookie().find((c) => c.startsWith('wgcp_session=')) ?? '').split(';')[0];
const api = (method: string, p: string, body?: unknown, headers: Record<string, string> = { Origin: base, ...json }) => call(base, method, p, body, headers);
const signInWithKey = async (key: string) => cookieOf(await api('POST', '/api/session', { key }));
const auditRows = async (action: string) => (await call(base, 'GET', `/api/audit?action=${action}`, undefined, { 'wg-control-key': d.key })).json.entries;

/** Registers a passkey of the session's owner with `auth`; the stored passkey's view. */
async function register(cookie: string, auth: SoftAuthenticator, name?: string) {
  const options = await api('POST', '/api/session/passkeys/options', undefined, page(cookie));
  assert.is(options.status, 200, options.text);
  const done = await api('POST', '/api/session/passkeys', { response: auth.create(options.json), ...(name ? { name } : {}) }, page(cookie));
  assert.is(done.status, 201, done.text);
  return done.json;
}

/** Options for a passkey sign-in (with `key`: its second factor), then the answer `answer` makes of them. */
async function passkeySignIn(key: string | null, answer: (options: any) => Record<string, unknown>) {
  const withKey = key === null ? {} : { key };
  const options = await api('POST', '/api/session/passkey/options', withKey);
  assert.is(options.status, 200, options.text);
  return api('POST', '/api/session/passkey', { ...withKey, response: answer(options.json) });
}

async function personSession(login: string): Promise<string> {
  const back = await signInAtProvider(base, login);
  const res = await fetch(back.callbackUrl, { redirect: 'manual', headers: { cookie: back.pendingCookie } });
  assert.is(res.status, 303);
  return cookieOf(res);
}

let annaAuth: SoftAuthenticator;
/** Ben's authenticator, once he has a passkey. */
let benSpare: SoftAuthenticator | null = null;

t('a key signed in registers a passkey (options for this site, a user handle, its other passkeys excluded); a name or Passkey N', async () => {
  const cookie = await signInWithKey(anna.key);
  const options = (await api('POST', '/api/session/passkeys/options', undefined, page(cookie))).json;
  assert.is(options.rp.id, 'localhost');
  assert.is(options.user.name, 'anna');
  assert.is(options.attestation, 'none');
  assert.equal(options.excludeCredentials, []);
  const first = await api('POST', '/api/session/passkeys', { response: annaAuth.create(options), name: 'Laptop' }, page(cookie));
  assert.is(first.status, 201, first.text);
  assert.equal(Object.keys(first.json).sort(), ['createdAt', 'id', 'lastUsedAt', 'name', 'transports']);
  assert.is(first.json.name, 'Laptop');
  assert.equal(first.json.transports, ['internal']);
  const second = await register(cookie, new SoftAuthenticator(base));
  assert.is(second.name, 'Passkey 2');
  const again = (await api('POST', '/api/session/passkeys/options', undefined, page(cookie))).json;
  assert.equal(again.excludeCredentials.map((c: { id: string }) => c.id).sort(), [annaAuth.credentialId, again.excludeCredentials.find((c: { id: string }) => c.id !== annaAuth.credentialId).id].sort());
  const list = (await api('GET', '/api/session/passkeys', undefined, page(cookie))).json;
  assert.equal(list.map((p: { name: string }) => p.name), ['Laptop', 'Passkey 2']);
  const rows = await auditRows('passkey.register');
  assert.is(rows.length, 2);
  assert.is(rows[0].actor.name, 'anna');
  assert.is(rows[0].summary.owner, 'anna');
});

t('a key with passkeys (and no TOTP) signs in only with one: the key alone is 401 naming the passkey', async () => {
  const r = await api('POST', '/api/session', { key: anna.key });
  assert.is(r.status, 401);
  assert.is(r.json.code, 'WGCP_PASSKEY_REQUIRED');
  assert.is(r.json.field, 'passkey');
  assert.is(r.headers.get('set-cookie'), null);
  // Headers stay single-factor, for scripts.
  assert.is((await client({ url: base, key: anna.key }).get('/api/servers')).status, 200);
});

t('the key and its passkey open a session; the counter and last use are kept; the audit names the passkey and its owner', async () => {
  const options = (await api('POST', '/api/session/passkey/options', { key: anna.key })).json;
  assert.equal(options.allowCredentials.length, 2);
  const r = await api('POST', '/api/session/passkey', { key: anna.key, response: annaAuth.get(options) });
  assert.is(r.status, 204, r.text);
  const cookie = cookieOf(r);
  const me = (await call(base, 'GET', '/api/session', undefined, { cookie })).json;
  assert.is(me.signedIn, true);
  assert.is(me.name, 'anna');
  assert.is(me.role, 'operator');
  const laptop = (await api('GET', '/api/session/passkeys', undefined, page(cookie))).json.find((p: { name: string }) => p.name === 'Laptop');
  assert.ok(laptop.lastUsedAt);
  const row = (await auditRows('session.sign-in'))[0];
  assert.is(row.actor.name, 'anna');
  assert.is(row.summary.passkey, 'Laptop');
});

t('an answer given twice is refused the second time: its challenge was taken', async () => {
  const options = (await api('POST', '/api/session/passkey/options', { key: anna.key })).json;
  const answer = annaAuth.get(options);
  assert.is((await api('POST', '/api/session/passkey', { key: anna.key, response: answer })).status, 204);
  const replay = await api('POST', '/api/session/passkey', { key: anna.key, response: answer });
  assert.is(replay.status, 400);
  assert.is(replay.json.code, 'WGCP_PASSKEY_CHALLENGE');
});

t('a challenge never given out, or given for another ceremony or key, is refused', async () => {
  const made = await passkeySignIn(anna.key, (o) => annaAuth.get({ ...o, challenge: 'bm90LWEtY2hhbGxlbmdlLW9mLXdnY3Bk' }));
  assert.is(made.json.code, 'WGCP_PASSKEY_CHALLENGE');
  // Ben's options (he has no passkey: 409), then a person's options answered with Anna's key.
  assert.is((await api('POST', '/api/session/passkey/options', { key: ben.key })).json.code, 'WGCP_PASSKEY_NONE');
  const forPeople = (await api('POST', '/api/session/passkey/options', {})).json;
  const crossed = await api('POST', '/api/session/passkey', { key: anna.key, response: annaAuth.get(forPeople) });
  assert.is(crossed.status, 400);
  assert.is(crossed.json.code, 'WGCP_PASSKEY_CHALLENGE');
  // A registration's challenge does not sign in.
  const cookie = await signInWithKey(d.key);
  const reg = (await api('POST', '/api/session/passkeys/options', undefined, page(cookie))).json;
  const r = await api('POST', '/api/session/passkey', { key: anna.key, response: annaAuth.get({ ...reg, rpId: 'localhost' }) });
  assert.is(r.json.code, 'WGCP_PASSKEY_CHALLENGE');
});

t('an answer signed for another origin or relying party, or of another type, is refused', async () => {
  for (const bend of [{ origin: 'http://localhost.evil.example' }, { origin: `http://127.0.0.1:${new URL(base).port}` }, { rpID: 'evil.example' }, { type: 'webauthn.create' }]) {
    const r = await passkeySignIn(anna.key, (o) => annaAuth.get(o, bend));
    assert.is(r.status, 401, JSON.stringify(bend));
    assert.is(r.json.code, 'WGCP_PASSKEY_REFUSED', JSON.stringify(bend));
    assert.is(r.headers.get('set-cookie'), null);
  }
});

t('a signature counter that goes backwards (a copied authenticator) is refused, and one that moves on is taken again', async () => {
  // A good sign-in first: the stored counter is then the authenticator's.
  assert.is((await passkeySignIn(anna.key, (o) => annaAuth.get(o))).status, 204);
  const at = annaAuth.counter;
  const back = await passkeySignIn(anna.key, (o) => annaAuth.get(o, { counter: at - 1 }));
  assert.is(back.status, 401);
  assert.is(back.json.code, 'WGCP_PASSKEY_REFUSED');
  assert.match(back.json.error, /counter/);
  const same = await passkeySignIn(anna.key, (o) => annaAuth.get(o, { counter: at }));
  assert.is(same.json.code, 'WGCP_PASSKEY_REFUSED');
  assert.is((await passkeySignIn(anna.key, (o) => annaAuth.get(o, { counter: at + 5 }))).status, 204);
});

t('two answers with the same counter sent at once (a copy used beside the original): one signs in, the other is refused', async () => {
  const [o1, o2] = [(await api('POST', '/api/session/passkey/options', { key: anna.key })).json, (await api('POST', '/api/session/passkey/options', { key: anna.key })).json];
  const next = annaAuth.counter + 1;
  const answers = [annaAuth.get(o1, { counter: next }), annaAuth.get(o2, { counter: next })];
  const results = await Promise.all(answers.map((response) => api('POST', '/api/session/passkey', { key: anna.key, response })));
  assert.equal(results.map((r) => r.status).sort(), [204, 401]);
  assert.match(results.find((r) => r.status === 401)!.json.error, /counter/);
});

t('a passkey of another key, an unknown one, and a key\'s passkey used alone are refused', async () => {
  const stranger = new SoftAuthenticator(base);
  assert.is((await passkeySignIn(anna.key, (o) => stranger.get(o))).json.code, 'WGCP_PASSKEY_UNKNOWN');
  const benCookie = await signInWithKey(ben.key);
  const benAuth = new SoftAuthenticator(base);
  benSpare = benAuth;
  await register(benCookie, benAuth, 'Ben\'s phone');
  assert.is((await passkeySignIn(anna.key, (o) => benAuth.get(o))).json.code, 'WGCP_PASSKEY_UNKNOWN');
  const alone = await passkeySignIn(null, (o) => annaAuth.get(o));
  assert.is(alone.status, 401);
  assert.is(alone.json.code, 'WGCP_PASSKEY_SECOND_FACTOR');
  assert.ok((await auditRows('session.sign-in-failed')).some((r: { summary: { reason: string } }) => r.summary.reason === 'passkey refused'));
});

t('a key with TOTP and a passkey: the key alone asks for the code, and the passkey is taken instead of it', async () => {
  const cookie = await signInWithKey(ben.key);
  assert.is(cookie, '', 'Ben has a passkey: his key alone opens no session');
  const first = cookieOf(await passkeySignIn(ben.key, (o) => benSpare!.get(o)));
  assert.ok(first, 'Ben signs in with his passkey');
  const begun = (await api('POST', '/api/session/totp', undefined, page(first))).json;
  assert.is((await api('POST', '/api/session/totp/confirm', { code: totpCode(begun.secret, Date.now()) }, page(first))).status, 200);
  const keyAlone = await api('POST', '/api/session', { key: ben.key });
  assert.is(keyAlone.json.code, 'WGCP_TOTP_CODE_REQUIRED');
  assert.is((await passkeySignIn(ben.key, (o) => benSpare!.get(o))).status, 204);
});

t('revoking a key removes its passkeys', async () => {
  const vera = (await client(d).post('/api/apikeys', { name: 'vera', role: 'viewer' })).json;
  const cookie = await signInWithKey(vera.key);
  const p = await register(cookie, new SoftAuthenticator(base), 'Vera');
  assert.is((await client(d).del(`/api/apikeys/${vera.id}`)).status, 204);
  const again = await client(d).post('/api/apikeys', { name: 'vera2', role: 'viewer' });
  const cookie2 = await signInWithKey(again.json.key);
  assert.equal((await api('GET', '/api/session/passkeys', undefined, page(cookie2))).json, []);
  assert.is((await api('DELETE', `/api/session/passkeys/${p.id}`, undefined, page(cookie2))).json.code, 'WGCP_PASSKEY_NOT_FOUND');
});

t('wgcp passkey reset (lost authenticators): the key signs in with its TOTP code again, and the reset is audited', async () => {
  const r = await run(process.execPath, [CLI, '--data-dir', d.dataDir, 'passkey', 'reset', String(ben.id)]);
  assert.match(r.stdout, /1 passkey of credential \d+ removed/);
  const again = await run(process.execPath, [CLI, '--data-dir', d.dataDir, 'passkey', 'reset', String(ben.id)]).catch((e: { code: number; stderr: string }) => e);
  assert.is((again as { code: number }).code, 2);
  assert.is((await api('POST', '/api/session/passkey/options', { key: ben.key })).json.code, 'WGCP_PASSKEY_NONE', 'no passkey left to ask for');
  assert.is((await api('POST', '/api/session', { key: ben.key })).json.code, 'WGCP_TOTP_CODE_REQUIRED');
  const [row] = await auditRows('passkey.reset');
  assert.is(row.actor.kind, 'cli');
  assert.equal(row.summary, { removed: 1, owner: 'ben' });
});

t('renaming and removing: one\'s own only; a removed passkey signs in no more', async () => {
  const cookie = await signInWithKey(ENVIRONMENT_KEY);
  assert.is((await api('GET', '/api/session/passkeys', undefined, page(cookie))).json.code, 'WGCP_PASSKEY_ENVIRONMENT_KEY');
  const annaCookie = cookieOf(await passkeySignIn(anna.key, (o) => annaAuth.get(o)));
  const mine = (await api('GET', '/api/session/passkeys', undefined, page(annaCookie))).json;
  const laptop = mine.find((p: { name: string }) => p.name === 'Laptop');
  const renamed = await api('PUT', `/api/session/passkeys/${laptop.id}`, { name: 'Work laptop' }, page(annaCookie));
  assert.is(renamed.status, 200);
  assert.is(renamed.json.name, 'Work laptop');
  assert.is((await api('PUT', `/api/session/passkeys/${laptop.id}`, { name: '' }, page(annaCookie))).status, 400);
  assert.is((await auditRows('passkey.rename'))[0].summary.was.name, 'Laptop');
  // Ben's passkey is not Anna's to rename or remove.
  const bens = (await auditRows('passkey.register')).find((r: { actor: { name: string } }) => r.actor.name === 'ben').targetId;
  assert.is((await api('DELETE', `/api/session/passkeys/${bens}`, undefined, page(annaCookie))).json.code, 'WGCP_PASSKEY_NOT_FOUND');
  assert.is((await api('PUT', `/api/session/passkeys/${bens}`, { name: 'mine' }, page(annaCookie))).json.code, 'WGCP_PASSKEY_NOT_FOUND');
  assert.is((await api('DELETE', `/api/session/passkeys/${laptop.id}`, undefined, page(annaCookie))).status, 204);
  assert.is((await api('DELETE', `/api/session/passkeys/${laptop.id}`, undefined, page(annaCookie))).status, 404);
  const gone = await passkeySignIn(anna.key, (o) => annaAuth.get(o));
  assert.is(gone.status, 401);
  assert.is(gone.json.code, 'WGCP_PASSKEY_UNKNOWN');
  assert.is((await auditRows('passkey.remove'))[0].summary.owner, 'anna');
});

t('passkeys are the page\'s: a key in a header may not register one (403), and every role manages its own', async () => {
  const header = await call(base, 'POST', '/api/session/passkeys/options', undefined, { 'wg-control-key': anna.key });
  assert.is(header.status, 403);
  assert.is(header.json.code, 'WGCP_PASSKEY_PAGE_ONLY');
  const viewer = (await client(d).post('/api/apikeys', { name: 'vic', role: 'viewer' })).json;
  const cookie = await signInWithKey(viewer.key);
  const p = await register(cookie, new SoftAuthenticator(base), 'Vic');
  assert.is((await api('PUT', `/api/session/passkeys/${p.id}`, { name: 'Vic 2' }, page(cookie))).status, 200);
  assert.is((await api('DELETE', `/api/session/passkeys/${p.id}`, undefined, page(cookie))).status, 204);
});

t('a person signed in by single sign-on registers a passkey and later signs in with it alone, with the mapped role', async () => {
  const cookie = await personSession('olga');
  const olga = new SoftAuthenticator(base);
  const options = (await api('POST', '/api/session/passkeys/options', undefined, page(cookie))).json;
  assert.is(options.authenticatorSelection.residentKey, 'required');
  assert.is(options.authenticatorSelection.userVerification, 'required');
  assert.is((await api('POST', '/api/session/passkeys', { response: olga.create(options), name: 'Phone' }, page(cookie))).status, 201);
  // Without user verification, a first factor is refused.
  assert.is((await passkeySignIn(null, (o) => olga.get(o, { userVerified: false }))).json.code, 'WGCP_PASSKEY_REFUSED');
  const r = await passkeySignIn(null, (o) => olga.get(o));
  assert.is(r.status, 204, r.text);
  const me = (await call(base, 'GET', '/api/session', undefined, { cookie: cookieOf(r) })).json;
  assert.is(me.kind, 'person');
  assert.is(me.role, 'operator');
  assert.is(me.name, 'olga@example.com (olga)');
  const row = (await auditRows('session.sign-in'))[0];
  assert.is(row.actor.kind, 'person');
  assert.is(row.actor.name, 'olga@example.com (olga)');
  assert.is(row.summary.passkey, 'Phone');
  // A person's passkey is no second factor of a key.
  assert.is((await passkeySignIn(anna.key, (o) => olga.get(o))).json.code, 'WGCP_PASSKEY_UNKNOWN');
});

t('a person whose single sign-on now gives no role is refused with their passkey too', async () => {
  const cookie = await personSession('alice');
  const alice = new SoftAuthenticator(base);
  await register(cookie, alice, 'Key');
  assert.is((await passkeySignIn(null, (o) => alice.get(o))).status, 204);
  ACCOUNTS.alice.groups = ['contractors'];
  try {
    const back = await signInAtProvider(base, 'alice');
    assert.is((await fetch(back.callbackUrl, { redirect: 'manual', headers: { cookie: back.pendingCookie } })).status, 403);
    const r = await passkeySignIn(null, (o) => alice.get(o));
    assert.is(r.status, 403);
    assert.is(r.json.code, 'WGCP_PASSKEY_NO_ROLE');
  } finally {
    ACCOUNTS.alice.groups = ['wgcp-admins'];
  }
});

t('a sign-in from another site is refused before anything is checked', async () => {
  const r = await call(base, 'POST', '/api/session/passkey/options', {}, { Origin: 'http://evil.example', ...json });
  assert.is(r.status, 403);
  assert.is(r.json.code, 'WGCP_CROSS_SITE');
});

/** A request with a Host of our choosing (fetch sets its own). */
function withHost(url: string, method: string, p: string, host: string, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    http.request(`${url}${p}`, { method, headers: { ...headers, host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    }).on('error', reject).end();
  });
}

t('without WGCP_PUBLIC_URL the relying party is the Host when it names this router by a name; an address or another name is refused', async () => {
  const plain = await startTestDaemon();
  try {
    const port = new URL(plain.url).port;
    const signIn = await call(plain.url, 'POST', '/api/session', { key: plain.key }, json);
    const cookie = cookieOf(signIn);
    const options = await withHost(plain.url, 'POST', '/api/session/passkeys/options', `localhost:${port}`, { cookie, origin: `http://localhost:${port}` });
    assert.is(options.status, 200);
    assert.is(options.json.rp.id, 'localhost');
    const address = await withHost(plain.url, 'POST', '/api/session/passkeys/options', `127.0.0.1:${port}`, { cookie, origin: `http://127.0.0.1:${port}` });
    assert.is(address.status, 400);
    assert.is(address.json.code, 'WGCP_PASSKEY_HOST_ADDRESS');
    const forged = await withHost(plain.url, 'POST', '/api/session/passkey/options', 'vpn.evil.example', {});
    assert.is(forged.status, 400);
    assert.is(forged.json.code, 'WGCP_PASSKEY_HOST_UNKNOWN');
    assert.is(forged.json.field, 'Host');
  } finally {
    await plain.stop();
  }
});

t.run();
