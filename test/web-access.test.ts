// Roles and two-factor sign-in in the real page, in Chromium, against a real daemon: an
// operator sets up TOTP in the Access view (codes from oathtool), signs in with a code, is
// refused a used one; each role sees only what it may do; a one-time link made on the
// peer page opens once in another tab; the admin's Audit view shows what happened.
import { execFileSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'puppeteer-core';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { eventually } from './helpers/receiver';
import { driver } from './web-drive';
import { browserSuite, ensureWebBuilt, launchChromium, seriousAxeProblems, watchPage, type PageWatch } from './web-support';

const t = browserSuite('page in chromium: roles, two-factor sign-in, one-time links, audit', ['oathtool']);

let d: TestDaemon;
let browser: Browser;
let page: Page;
let watch: PageWatch;
let drive: ReturnType<typeof driver>;
const keys: Record<string, string> = {};
let peerId = 0;
let secret = '';
let usedCode = '';

t.before(async () => {
  ensureWebBuilt();
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  const api = client(d);
  for (const role of ['operator', 'viewer']) keys[role] = (await api.post('/api/apikeys', { name: `${role}-key`, role })).json.key;
  const sid = (await api.post('/api/servers', { name: 'office', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  peerId = (await api.post(`/api/servers/${sid}/peers`, { name: 'anna-phone' })).json.id;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 860 });
  watch = await watchPage(page, d.url);
  drive = driver(page);
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});

const buttonShown = (text: string) => drive.js<boolean>(`[...document.querySelectorAll('button, a.button')].some((b) => b.textContent.trim() === ${JSON.stringify(text)})`);
/** oathtool's code for the secret, `steps` of 30 s from now. */
const oath = (steps = 0) => execFileSync('oathtool', ['--totp', '-b', '-N', `@${Math.floor(Date.now() / 1000) + steps * 30}`, secret], { encoding: 'utf8' }).trim();

async function signInTyping(key: string): Promise<void> {
  await page.goto(`${d.url}/`, { waitUntil: 'networkidle0' });
  await drive.waitFor(`document.activeElement?.id === 'signin-key'`);
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
}
async function signOut(): Promise<void> {
  await drive.clickButton('Sign out');
  await drive.waitFor(`document.getElementById('signin-key')`);
}

t('an operator sets up two-factor sign-in in the Access view: QR code, a first code, recovery codes', async () => {
  await signInTyping(keys.operator);
  await drive.h1Is('Overview');
  await page.goto(`${d.url}/#/access`, { waitUntil: 'networkidle0' });
  await drive.h1Is('Access');
  assert.is(await drive.js<boolean>(`!!document.getElementById('key-name')`), false, 'an operator sees no API keys');
  assert.is(await drive.js<boolean>(`!!document.querySelector('a[href="/api/backup"]')`), false, 'nor the backup');
  await drive.clickButton('Set up two-factor sign-in');
  await drive.waitFor(`document.getElementById('totp-secret')`);
  assert.ok(await drive.js<boolean>(`!!document.querySelector('div.qr svg path')`), 'the QR code is drawn');
  secret = await drive.js<string>(`document.getElementById('totp-secret').textContent`);
  usedCode = oath();
  await page.type('#totp-code', usedCode);
  await drive.clickButton('Turn on');
  await drive.waitFor(`document.querySelectorAll('ul.recovery li').length === 10`);
  await drive.hasText('#totp-h ~ form p', '10 recovery codes left');
  assert.equal(await seriousAxeProblems(page), []);
});

t('signing in then asks for the code; a used code is refused with a clear message, a fresh one signs in', async () => {
  await signOut();
  await signInTyping(keys.operator);
  await drive.waitFor(`document.activeElement?.id === 'signin-code'`);
  await page.keyboard.type(usedCode);
  await page.keyboard.press('Enter');
  await drive.hasText('main', 'wrong or was used already');
  await page.click('#signin-code', { count: 3 });
  await page.keyboard.press('Backspace');
  await page.keyboard.type(oath(1));
  await page.keyboard.press('Enter');
  await drive.h1Is('Overview');
  assert.is(await drive.js<boolean>(`[...document.querySelectorAll('nav a')].some((a) => a.textContent === 'Audit')`), false, 'no Audit for an operator');
});

t('an operator makes a one-time link on the peer page; another tab opens it once', async () => {
  await page.goto(`${d.url}/#/peers/${peerId}`, { waitUntil: 'networkidle0' });
  await drive.h1Is('anna-phone');
  assert.is(await buttonShown('Delete'), false, 'an operator cannot delete a peer');
  await drive.clickButton('Make a link');
  await drive.waitFor(`document.getElementById('share-url')?.value.includes('/share/')`);
  const url = await drive.js<string>(`document.getElementById('share-url').value`);
  const other = await browser.newPage();
  try {
    const first = await other.goto(url, { waitUntil: 'load' });
    assert.is(first?.status(), 200);
    assert.ok(await other.evaluate(`document.querySelector('img').naturalWidth > 100`), 'the QR code shows');
    assert.ok(await other.evaluate(`document.querySelector('a[download]').href.startsWith('data:text/plain')`));
    const again = await other.goto(url, { waitUntil: 'load' });
    assert.is(again?.status(), 410);
    assert.match(await other.evaluate('document.body.innerText') as string, /opened already/);
  } finally {
    await other.close();
  }
  await page.reload({ waitUntil: 'networkidle0' });
  await drive.hasText('ul.shares li', 'used');
});

t('an operator cannot bring a peer\'s expiry nearer, told beside the field; other settings of that peer save', async () => {
  // An expiry with seconds, which the form shows to the minute: saving the name must not send it back sooner.
  assert.is((await client(d).put(`/api/peers/${peerId}`, { expiresAt: '2035-01-01T10:00:17.500Z' })).status, 200);
  await page.reload({ waitUntil: 'networkidle0' });
  await drive.hasText('#edit-expiresAt-hint', 'Only an admin may set one');
  await drive.setValue('edit-name', 'anna-phone-2');
  await drive.clickButton('Save settings');
  await eventually('the name saved', async () => ((await client(d).get(`/api/peers/${peerId}`)).json.name === 'anna-phone-2' ? true : undefined));
  // The page has taken the saved peer (its answer refills the form) before the next field is typed.
  await drive.h1Is('anna-phone-2');
  await drive.setValue('edit-expiresAt', '2031-06-30T18:00');
  await drive.clickButton('Save settings');
  assert.match(await drive.fieldError('edit-expiresAt'), /needs role admin/);
  assert.is((await client(d).get(`/api/peers/${peerId}`)).json.expiresAt, '2035-01-01T10:00:17.500Z');
  await drive.setValue('edit-name', 'anna-phone');
  await drive.setValue('edit-expiresAt', '');
  await drive.clickButton('Save settings');
  await eventually('the name back, the expiry cleared', async () => {
    const p = (await client(d).get(`/api/peers/${peerId}`)).json;
    return p.name === 'anna-phone' && p.expiresAt === null ? true : undefined;
  });
});

t('a viewer sees peers without configs and without the controls to change them', async () => {
  await signOut();
  await signInTyping(keys.viewer);
  await drive.h1Is('Overview');
  assert.is(await buttonShown('Add a server'), false);
  await page.goto(`${d.url}/#/peers/${peerId}`, { waitUntil: 'networkidle0' });
  await drive.h1Is('anna-phone');
  await drive.hasText('main', 'Configurations are for operators and admins');
  assert.is(await drive.js<boolean>(`!!document.querySelector('img.qr')`), false);
  assert.is(await drive.js<boolean>(`document.getElementById('switch-enabled').disabled`), true);
  assert.is(await drive.js<boolean>(`!!document.getElementById('share-hours')`), false);
  assert.is((await call(d.url, 'GET', `/api/peers/${peerId}/config`, undefined, { 'wg-control-key': keys.viewer })).status, 403);
});

t('the admin sets roles in the Access view and reads the Audit view', async () => {
  await signOut();
  await signInTyping(d.key);
  await drive.h1Is('Overview');
  await page.goto(`${d.url}/#/access`, { waitUntil: 'networkidle0' });
  await drive.waitFor(`document.querySelector('select[aria-label="Role of API key viewer-key"]')`);
  const api = client(d);
  const role = async (name: string) => ((await api.get('/api/apikeys')).json as { name: string; role: string }[]).find((k) => k.name === name)?.role;
  // A role change is asked first: the menu shows the stored role until the answer.
  await page.select('select[aria-label="Role of API key viewer-key"]', 'operator');
  await drive.hasText('dialog[open]', 'Make the API key “viewer-key” operator?');
  assert.is(await drive.js<string>(`document.querySelector('select[aria-label="Role of API key viewer-key"]').value`), 'viewer');
  assert.equal(await seriousAxeProblems(page), [], 'the Access view with its question open');
  await drive.clickButton('Cancel');
  await drive.waitFor(`!document.querySelector('dialog[open]')`);
  assert.is(await role('viewer-key'), 'viewer', 'cancelled: nothing changed');
  await page.select('select[aria-label="Role of API key viewer-key"]', 'operator');
  await drive.clickButton('Yes, make it operator');
  await eventually('the role saved', async () => ((await role('viewer-key')) === 'operator' ? true : undefined));
  // The first-start key is the only admin: demoting it is refused, and said in the dialog.
  await page.select('select[aria-label="Role of API key first-start"]', 'viewer');
  await drive.clickButton('Yes, make it viewer');
  await drive.hasText('dialog[open] [role=alert]', 'would leave no admin');
  await drive.clickButton('Cancel');
  assert.is(await role('first-start'), 'admin');
  await page.goto(`${d.url}/#/audit`, { waitUntil: 'networkidle0' });
  await drive.h1Is('Audit log');
  // Each entry is said in words, with what it changed.
  await drive.hasText('ol.audit .what', 'share link used for peer');
  await drive.hasText('ol.audit .what', 'failed to sign in');
  await drive.hasText('ol.audit .what', 'changed the role of API key');
  await drive.hasText('ol.audit .what', ': viewer -> operator');
  assert.equal(await seriousAxeProblems(page), []);
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.foreign, []);
});

t.run();
