// Two-factor sign-in for the page, against codes made by Debian's oathtool (an independent
// RFC 6238 implementation) at times the daemon's injected clock also has: enrolment, sign-in,
// a code used once, ±1 step of skew accepted and ±2 refused, recovery codes, the failure
// limit, `wgcp totp reset`, and API keys staying single-factor.
import { execFile, execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suiteNeeding('two-factor sign-in (TOTP) against oathtool', ['oathtool']);
const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
let d: TestDaemon;
let clock = Date.parse('2026-03-01T12:00:10Z');
let key = '';
let keyId = 0;
let secret = '';
let recovery: string[] = [];

/** oathtool's code for the secret at `ms` (its own clock set with -N). */
const oath = (ms: number): string => execFileSync('oathtool', ['--totp', '-b', '-N', `@${Math.floor(ms / 1000)}`, secret], { encoding: 'utf8' }).trim();
const json = { 'Content-Type': 'application/json' };
const signIn = (body: Record<string, unknown>) => call(d.url, 'POST', '/api/session', body, json);
const cookieOf = (r: { headers: Headers }) => (r.headers.get('set-cookie') ?? '').split(';')[0];
const asPage = (cookie: string) => ({ Cookie: cookie, Origin: d.url, ...json });

t.before(async () => {
  d = await startTestDaemon({ options: { now: () => new Date(clock) } });
  const made = (await client(d).post('/api/apikeys', { name: 'anna', role: 'operator' })).json;
  key = made.key;
  keyId = made.id;
});
t.after(async () => { await d.stop(); });

t('enrolment: a secret with its otpauth URI and QR code, turned on by a first code, with ten recovery codes', async () => {
  const cookie = cookieOf(await signIn({ key }));
  assert.equal((await call(d.url, 'GET', '/api/session/totp', undefined, asPage(cookie))).json, { enabled: false, pending: false, recoveryCodesLeft: 0 });
  const begun = await call(d.url, 'POST', '/api/session/totp', undefined, asPage(cookie));
  assert.is(begun.status, 200);
  secret = begun.json.secret;
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.is(begun.json.uri, `otpauth://totp/wgcp%3Aanna?secret=${secret}&issuer=wgcp&algorithm=SHA1&digits=6&period=30`);
  assert.match(begun.json.qrSvg, /^<svg[\s\S]*<\/svg>\s*$/);
  const wrong = await call(d.url, 'POST', '/api/session/totp/confirm', { code: oath(clock + 120_000) }, asPage(cookie));
  assert.is(wrong.status, 400);
  assert.is(wrong.json.field, 'code');
  const on = await call(d.url, 'POST', '/api/session/totp/confirm', { code: oath(clock) }, asPage(cookie));
  assert.is(on.status, 200);
  recovery = on.json.recoveryCodes;
  assert.is(recovery.length, 10);
  assert.is(new Set(recovery).size, 10);
  assert.equal((await call(d.url, 'GET', '/api/session/totp', undefined, asPage(cookie))).json, { enabled: true, pending: false, recoveryCodesLeft: 10 });
  assert.is((await call(d.url, 'POST', '/api/session/totp', undefined, asPage(cookie))).status, 409, 'no second enrolment while on');
});

t('an API key with the header stays single-factor; only page sessions set two-factor up', async () => {
  assert.is((await client({ url: d.url, key }).get('/api/servers')).status, 200);
  const r = await client({ url: d.url, key }).post('/api/session/totp', {});
  assert.is(r.status, 403);
  assert.match(r.json.error, /from the page/);
});

t('sign-in now needs a code: without one 401 naming the field "code"', async () => {
  const r = await signIn({ key });
  assert.is(r.status, 401);
  assert.equal(r.json, { error: 'two-factor code required', field: 'code' });
  assert.is(cookieOf(r), '');
});

t('the code that confirmed the enrolment cannot sign in (used once)', async () => {
  assert.is((await signIn({ key, code: oath(clock) })).status, 401);
});

t('a fresh code signs in once; the same code again is refused', async () => {
  clock += 30_000;
  const code = oath(clock);
  const r = await signIn({ key, code });
  assert.is(r.status, 204);
  assert.match(cookieOf(r), /^wgcp_session=/);
  const again = await signIn({ key, code });
  assert.is(again.status, 401);
  assert.equal(again.json, { error: 'wrong or used two-factor code', field: 'code' });
});

t('clock skew: codes of ±2 steps are refused, of ±1 step accepted', async () => {
  clock += 10 * 60_000;
  assert.is((await signIn({ key, code: oath(clock - 60_000) })).status, 401, '-2 steps');
  assert.is((await signIn({ key, code: oath(clock + 60_000) })).status, 401, '+2 steps');
  assert.is((await signIn({ key, code: oath(clock - 30_000) })).status, 204, '-1 step');
  assert.is((await signIn({ key, code: oath(clock + 30_000) })).status, 204, '+1 step');
  // After a later step was used, an earlier one is a replay too.
  assert.is((await signIn({ key, code: oath(clock) })).status, 401, 'a step before the last one used');
});

t('a recovery code signs in once, in any case and with or without its dash', async () => {
  const code = recovery[0];
  assert.is((await signIn({ key, code: code.toUpperCase().replace('-', '') })).status, 204);
  assert.is((await signIn({ key, code })).status, 401);
  const cookie = cookieOf(await signIn({ key, code: recovery[1] }));
  assert.is((await call(d.url, 'GET', '/api/session/totp', undefined, asPage(cookie))).json.recoveryCodesLeft, 8);
});

t('refused codes are in the audit log with the key that was used, never the code', async () => {
  const rows = (await client(d).get(`/api/audit?action=session.sign-in-failed&actor=page:${keyId}`)).json.entries as { summary: { reason: string } }[];
  const reasons = rows.map((r) => r.summary.reason);
  assert.ok(reasons.includes('wrong two-factor code'));
  assert.ok(reasons.includes('two-factor code missing'));
  assert.is(JSON.stringify(rows).includes(recovery[0]), false);
});

t('wrong codes count as failed sign-ins: past the limit, 429 even with a right code', async () => {
  clock += 60_000;
  let status = 0;
  for (let i = 0; i < 12 && status !== 429; i++) status = (await signIn({ key, code: '000000' === oath(clock) ? '111111' : '000000' })).status;
  assert.is(status, 429);
  assert.is((await signIn({ key, code: oath(clock) })).status, 429);
  clock += 6 * 60_000;
});

/** A sign-in sent from another loopback address (any 127.x reaches the daemon's 127.0.0.1). */
function signInFrom(localAddress: string, body: Record<string, unknown>): Promise<number> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${d.url}/api/session`, { method: 'POST', localAddress, headers: { ...json, 'Content-Length': Buffer.byteLength(text) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(text);
  });
}
const wrongCode = () => ('000000' === oath(clock) ? '111111' : '000000');

t('signing in with another key between guesses buys no more guesses: the address keeps its count', async () => {
  clock += 6 * 60_000;
  const viewer = (await client(d).post('/api/apikeys', { name: 'vera', role: 'viewer' })).json.key;
  const from = '127.0.0.2';
  for (let i = 0; i < 9; i++) assert.is(await signInFrom(from, { key, code: wrongCode() }), 401);
  assert.is(await signInFrom(from, { key: viewer }), 204, 'the viewer signs in');
  assert.is(await signInFrom(from, { key, code: wrongCode() }), 401, 'the tenth failure of the window');
  assert.is(await signInFrom(from, { key: viewer }), 429, 'the address is now refused, whatever key');
  assert.is(await signInFrom(from, { key, code: oath(clock) }), 429);
});

t('a key\'s wrong codes are counted from every address: past the limit its codes are refused anywhere, other keys still sign in', async () => {
  clock += 6 * 60_000;
  const viewer = (await client(d).post('/api/apikeys', { name: 'vic', role: 'viewer' })).json.key;
  for (let i = 0; i < 5; i++) assert.is(await signInFrom('127.0.0.3', { key, code: wrongCode() }), 401);
  for (let i = 0; i < 5; i++) assert.is(await signInFrom('127.0.0.4', { key, code: wrongCode() }), 401);
  assert.is(await signInFrom('127.0.0.5', { key, code: oath(clock) }), 429, 'even the right code, from a fresh address');
  assert.is(await signInFrom('127.0.0.5', { key: viewer }), 204, 'the fresh address itself is not refused');
  clock += 5 * 60_000 + 1000;
  assert.is(await signInFrom('127.0.0.5', { key, code: oath(clock) }), 204, 'after the window');
});

t('a success forgives its own key\'s failures: the owner who mistyped a code goes on', async () => {
  clock += 6 * 60_000;
  const from = '127.0.0.6';
  for (let i = 0; i < 9; i++) assert.is(await signInFrom(from, { key, code: wrongCode() }), 401);
  assert.is(await signInFrom(from, { key, code: oath(clock) }), 204);
  clock += 30_000;
  for (let i = 0; i < 9; i++) assert.is(await signInFrom(from, { key, code: wrongCode() }), 401, `failure ${i + 1} after the success`);
  assert.is(await signInFrom(from, { key, code: oath(clock) }), 204);
});

t('wgcp totp reset (a lost phone): the key signs in without a code again, and the reset is audited', async () => {
  const r = await run(process.execPath, [CLI, '--data-dir', d.dataDir, 'totp', 'reset', String(keyId)]);
  assert.match(r.stdout, /removed/);
  assert.is((await signIn({ key })).status, 204);
  const again = await run(process.execPath, [CLI, '--data-dir', d.dataDir, 'totp', 'reset', String(keyId)]).catch((e) => e);
  assert.is(again.code, 2);
  const [row] = (await client(d).get('/api/audit?action=totp.reset')).json.entries;
  assert.equal([row.actor.kind, row.targetId], ['cli', String(keyId)]);
});

t('turning it off from the page needs a current code', async () => {
  clock += 60_000;
  const cookie = cookieOf(await signIn({ key }));
  secret = (await call(d.url, 'POST', '/api/session/totp', undefined, asPage(cookie))).json.secret;
  assert.is((await call(d.url, 'POST', '/api/session/totp/confirm', { code: oath(clock) }, asPage(cookie))).status, 200);
  assert.is((await call(d.url, 'DELETE', '/api/session/totp', { code: '12345' }, asPage(cookie))).status, 400);
  clock += 30_000;
  assert.is((await call(d.url, 'DELETE', '/api/session/totp', { code: oath(clock) }, asPage(cookie))).status, 204);
  assert.is((await signIn({ key })).status, 204);
});

t.run();
