// Passkeys in the real page, in Chromium with its virtual authenticator (DevTools WebAuthn
// domain: CTAP2, internal transport, resident keys, user verification), against a real
// OpenID provider for people: a key's holder adds, names and removes passkeys in the Access
// view and then signs in with the key and a passkey; a person signs in with a passkey alone;
// a removed passkey, a counter set back in the authenticator, a captured answer sent again,
// and an answer Chromium signed for another origin (a look-alike site relaying wgcpd's
// challenge) are each refused. The WebAuthn code is fetched only when a passkey is used.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { freePort, oidcEnv, startTestProvider, type TestProvider } from './helpers/oidc-provider';
import { driver } from './web-drive';
import { browserSuite, ensureWebBuilt, launchChromium, watchPage, WEB_OUT, type PageWatch } from './web-support';

const t = browserSuite('page in chromium: passkeys with the virtual authenticator');

let provider: TestProvider;
let d: TestDaemon;
let base = '';
let browser: Browser;
let page: Page;
let cdp: CDPSession;
let authenticatorId = '';
let watch: PageWatch;
let drive: ReturnType<typeof driver>;
let anna = { id: 0, key: '' };
let lazyChunks: string[] = [];
/** What the page sent to POST /api/session/passkey, captured to be sent again. */
const sentAnswers: string[] = [];

t.before(async () => {
  // The script that calls navigator.credentials: the WebAuthn library, wherever the build put it.
  const scripts = ensureWebBuilt().files.filter((f) => f.name.endsWith('.js'));
  const webauthn = scripts.filter((f) => fs.readFileSync(path.join(WEB_OUT, f.name), 'utf8').includes('navigator.credentials'));
  assert.equal(webauthn.map((f) => f.firstLoad), [false], 'one script holds the WebAuthn code, and it is not in the first load');
  lazyChunks = webauthn.map((f) => `/${f.name}`);
  const port = await freePort();
  // A name, not an address: browsers take no address as a WebAuthn relying party.
  base = `http://localhost:${port}`;
  provider = await startTestProvider(base, { olga: { email: 'olga@example.com', groups: ['wgcp-ops'] } });
  d = await startTestDaemon({ env: {
    WGCP_LISTEN: `127.0.0.1:${port}`, ...oidcEnv(provider, base, 'operator=groups:wgcp-ops'),
  }, options: { events: { schedule: false } } });
  anna = (await client(d).post('/api/apikeys', { name: 'anna', role: 'operator' })).json;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 860 });
  drive = driver(page);
  watch = await watchPage(page, base);
  page.on('request', (r) => { if (r.method() === 'POST' && r.url() === `${base}/api/session/passkey`) sentAnswers.push(r.postData() ?? ''); });
  cdp = await page.createCDPSession();
  await cdp.send('WebAuthn.enable');
  authenticatorId = await newAuthenticator();
});

/** A virtual authenticator as the brief names it: CTAP2, built in, resident keys, user verification (done). */
async function newAuthenticator(): Promise<string> {
  const options = { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } as const;
  return (await cdp.send('WebAuthn.addVirtualAuthenticator', { options })).authenticatorId;
}
t.after(async () => {
  await browser?.close();
  await d?.stop();
  await provider?.close();
});

const signedInAs = () => drive.js<string>("fetch('/api/session').then((r) => r.json()).then((s) => s.signedIn ? s.name : '')");
/** Whether the page fetched the WebAuthn chunk. */
const webauthnLoaded = () => drive.js<boolean>(`performance.getEntriesByType('resource').some((e) => ${JSON.stringify(lazyChunks)}.some((c) => e.name.endsWith(c)))`);
const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;

async function signInWithKey(key: string): Promise<void> {
  await page.goto(`${base}/`, { waitUntil: 'networkidle0' });
  await drive.waitFor(`document.activeElement?.id === 'signin-key'`);
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
}
async function signOut(): Promise<void> {
  await page.deleteCookie({ name: 'wgcp_session', url: base });
  await page.goto(`${base}/`, { waitUntil: 'networkidle0' });
  await drive.waitFor(`document.getElementById('signin-key')`);
}
async function addPasskey(name: string): Promise<void> {
  await drive.typeInto('passkey-name', name);
  await drive.clickButton('Add a passkey');
  await drive.hasText('table.passkeys td', name);
}

t('signed in with a key, the Access view adds two named passkeys, renames one and removes it; axe finds nothing; WebAuthn code only now', async () => {
  await signInWithKey(anna.key);
  await drive.h1Is('Overview');
  assert.is(await webauthnLoaded(), false, 'the first load carries no WebAuthn code');
  await page.goto(`${base}/#/access`, { waitUntil: 'networkidle0' });
  await drive.hasText('#passkeys-h', 'Passkeys');
  await drive.hasText('main p', 'No passkey yet.');
  await addPasskey('Laptop');
  assert.is(await webauthnLoaded(), true, 'the WebAuthn chunk came with the first ceremony');
  // One authenticator keeps one passkey of a user (the others are excluded): the spare is
  // made on a second one, while the first is put away.
  const laptop = await credentials();
  await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
  const spare = await newAuthenticator();
  await addPasskey('Spare');
  await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: spare });
  authenticatorId = await newAuthenticator();
  for (const credential of laptop) await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
  assert.is((await call(base, 'GET', '/api/audit?action=passkey.register', undefined, { 'wg-control-key': d.key })).json.entries.length, 2);
  await drive.accessible('the Access view with passkeys');
  await drive.js(`document.querySelector('table.passkeys button[aria-label="Rename: Laptop"]').click()`);
  await drive.waitFor(`!!document.querySelector('table.passkeys input')`);
  await drive.typeInto(await drive.js<string>(`document.querySelector('table.passkeys input').id`), 'Work laptop');
  await drive.clickButton('Save');
  await drive.hasText('table.passkeys td', 'Work laptop');
  await drive.js(`document.querySelector('table.passkeys button[aria-label="Remove: Spare"]').click()`);
  await drive.waitFor(`document.querySelector('dialog.ask')?.open`);
  await drive.accessible('the question before removing a passkey');
  await drive.clickButton('Yes, remove');
  await drive.waitFor(`document.querySelectorAll('table.passkeys tbody tr').length === 1`);
  const left = (await call(base, 'GET', '/api/audit?action=passkey', undefined, { 'wg-control-key': d.key })).json.entries.map((e: { action: string }) => e.action);
  assert.equal(left.sort(), ['passkey.register', 'passkey.register', 'passkey.remove', 'passkey.rename']);
});

t('the key then asks for its passkey: Use your passkey signs in', async () => {
  await signOut();
  await page.keyboard.type(anna.key);
  await page.keyboard.press('Enter');
  await drive.hasText('[role=status]', 'second factor');
  await drive.accessible('the sign-in asking for the passkey');
  await drive.clickButton('Use your passkey');
  await drive.h1Is('Overview');
  assert.is(await signedInAs(), 'anna');
});

t('a captured answer sent again is refused: its challenge was spent', async () => {
  const last = JSON.parse(sentAnswers.at(-1)!);
  const again = await call(base, 'POST', '/api/session/passkey', last, { 'Content-Type': 'application/json', Origin: base });
  assert.is(again.status, 400);
  assert.is(again.json.code, 'WGCP_PASSKEY_CHALLENGE');
});

t('a signature counter set back in the authenticator (a copied passkey) is refused in the page', async () => {
  const [cred] = await credentials();
  assert.ok(cred.signCount > 1, `the counter moved: ${cred.signCount}`);
  await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: cred.credentialId });
  await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...cred, signCount: 0 } });
  await signOut();
  await page.keyboard.type(anna.key);
  await page.keyboard.press('Enter');
  watch.expectFailure('/api/session/passkey');
  await drive.clickButton('Use your passkey');
  await drive.waitFor(`[...document.querySelectorAll('[role=alert]')].some((e) => e.textContent.includes('counter'))`);
  assert.is(await signedInAs(), '');
  // Put forward again, it signs in.
  await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: cred.credentialId });
  await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...cred, signCount: cred.signCount + 10 } });
  await drive.clickButton('Use your passkey');
  await drive.h1Is('Overview');
});

/** A look-alike site on another origin (same host name, another port) that relays wgcpd's challenge to Chromium. */
async function answerFromAnotherOrigin(key: string): Promise<unknown> {
  const other = http.createServer((_req, res) => res.end('<!doctype html><title>look-alike</title>'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  try {
    const options = (await call(base, 'POST', '/api/session/passkey/options', { key }, { 'Content-Type': 'application/json', Origin: base })).json;
    const tab = await browser.newPage();
    const c = await tab.createCDPSession();
    await c.send('WebAuthn.enable');
    const { authenticatorId: id } = await c.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
    for (const cred of await credentials()) await c.send('WebAuthn.addCredential', { authenticatorId: id, credential: { ...cred, signCount: cred.signCount + 100 } });
    await tab.goto(`http://localhost:${(other.address() as { port: number }).port}/`);
    const answer = await tab.evaluate(`navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(${JSON.stringify(options)}) }).then((c) => c.toJSON())`);
    await tab.close();
    return answer;
  } finally {
    other.close();
  }
}

t('an answer Chromium signed on another origin (a look-alike site relaying the challenge) is refused', async () => {
  const response = await answerFromAnotherOrigin(anna.key);
  assert.match(JSON.stringify(response), /"clientDataJSON"/);
  const r = await call(base, 'POST', '/api/session/passkey', { key: anna.key, response }, { 'Content-Type': 'application/json', Origin: base });
  assert.is(r.status, 401);
  assert.is(r.json.code, 'WGCP_PASSKEY_REFUSED');
  assert.match(r.json.error, /origin/);
});

t('a person signed in by single sign-on adds a passkey, then signs in with it alone, as the person', async () => {
  // Olga's own authenticator: Anna's passkey would be offered first otherwise.
  await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
  await signOut();
  await drive.clickButton('Sign in with single sign-on');
  await page.waitForSelector('input[name=login]');
  await page.type('input[name=login]', 'olga');
  await page.type('input[name=password]', 'any password');
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  if (page.url().startsWith(provider.issuer) && await page.$('input[name=prompt][value=consent]')) {
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  }
  await drive.hasText('header .who', 'olga@example.com (olga) · operator');
  await page.goto(`${base}/#/access`, { waitUntil: 'networkidle0' });
  await addPasskey('Olga\'s phone');
  await signOut();
  await drive.clickButton('Sign in with a passkey');
  await drive.hasText('header .who', 'olga@example.com (olga) · operator');
  assert.is(await signedInAs(), 'olga@example.com (olga)');
});

t('a removed passkey still in the authenticator is refused', async () => {
  await page.goto(`${base}/#/access`, { waitUntil: 'networkidle0' });
  await drive.hasText('table.passkeys td', 'Olga\'s phone');
  await drive.js(`document.querySelector('table.passkeys button.danger').click()`);
  await drive.clickButton('Yes, remove');
  await drive.hasText('main p', 'No passkey yet.');
  await signOut();
  watch.expectFailure('/api/session/passkey');
  await drive.clickButton('Sign in with a passkey');
  await drive.waitFor(`[...document.querySelectorAll('[role=alert]')].some((e) => e.textContent.includes('not registered here'))`);
  assert.is(await signedInAs(), '');
  assert.equal(watch.consoleErrors.filter((e) => !/Failed to load resource/.test(e)), [], 'no script errors');
  assert.equal(watch.cspViolations, []);
  // The provider's own login page asks for its web fonts; the page itself leaves its origin never.
  assert.equal(watch.foreign.filter((u) => !u.startsWith(provider.issuer) && !u.startsWith('https://fonts.googleapis.com/')), []);
});

t.run();
