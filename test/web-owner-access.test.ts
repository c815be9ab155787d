// The dashboard in chromium as a router's owner meets it (issue 27), the part about access
// and files: a reload names the server, an ended session loses no edit, .conf files named
// after the peer (and a template for a peer with its own keys), the backup with a
// passphrase, revoking the key one signed in with, a failed server's reason.
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { dashboardPage, type DashboardPage } from './helpers/signed-in-page';
import { call, client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { eventually } from './helpers/receiver';
import { browserSuite, watchPage } from './web-support';
import { driver } from './web-drive';
import { kernelWithFailedServer } from './web-failed-kernel';
import { decryptFile } from '../src/backup/cipher';
import { peerAllowedIps } from '../src/wg/conf';

const t = browserSuite('dashboard in chromium: sessions, files and credentials as an owner meets them');

let d: TestDaemon;
let { browser, page, watch, drive, signIn, go } = {} as DashboardPage;
let api: ReturnType<typeof client>;
let downloads = '';
const ids = { server: 0, peer: 0 };

t.before(async () => {
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  api = client(d);
  ids.server = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward', address6: 'fd00:77:1:2::1/64' })).json.id;
  ids.peer = (await api.post(`/api/servers/${ids.server}/peers`, { name: 'phone' })).json.id;
  ({ browser, page, watch, drive, signIn, go } = await dashboardPage(d, { viewport: { width: 1200, height: 860 } }));
  downloads = tempDir('wgcp-downloads-');
  const cdp = await browser.target().createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});

/** A file the page saved into the downloads folder, once whole. */
const downloaded = (name: string) => eventually(`${name} downloaded`, () => {
  const file = path.join(downloads, name);
  return fs.existsSync(file) && !fs.existsSync(`${file}.crdownload`) && fs.statSync(file).size > 0 ? fs.readFileSync(file) : undefined;
});

t('reloading a peer\'s page names its server in the breadcrumb', async () => {
  await signIn();
  await go(`peers/${ids.peer}`);
  await page.reload({ waitUntil: 'networkidle0' });
  await drive.h1Is('phone');
  await drive.waitFor(`document.querySelector('.crumbs a[href="#/servers/${ids.server}"]')?.textContent === 'home'`);
});

t('a session that ends while editing says so, keeps the typed edit, and saves it after signing in again', async () => {
  await go(`peers/${ids.peer}`);
  await drive.h1Is('phone');
  await drive.typeInto('edit-name', 'phone-after-sign-in');
  const cookie = (await page.cookies()).find((c) => c.name === 'wgcp_session')!;
  assert.is((await call(d.url, 'DELETE', '/api/session', undefined, { Cookie: `wgcp_session=${cookie.value}`, Origin: d.url })).status, 204);
  watch.expectFailure(`/api/peers/${ids.peer}`);
  await drive.clickButton('Save settings');
  await drive.waitFor(`document.querySelector('dialog.signin-dialog')?.open`);
  await drive.hasText('.form-error', 'Your session ended, so this was not saved');
  assert.is(await drive.js('document.getElementById("edit-name").value'), 'phone-after-sign-in', 'the edit is kept');
  assert.is((await api.get(`/api/peers/${ids.peer}`)).json.name, 'phone');
  await drive.accessible('the sign-in dialog');
  await page.type('#signin-key', d.key);
  await page.keyboard.press('Enter');
  await drive.waitFor(`!document.querySelector('dialog.signin-dialog')`);
  assert.is(await drive.js('document.getElementById("edit-name").value'), 'phone-after-sign-in');
  await drive.clickButton('Save settings');
  await eventually('the edit saved', async () => ((await api.get(`/api/peers/${ids.peer}`)).json.name === 'phone-after-sign-in' ? true : undefined));
  assert.is((await api.put(`/api/peers/${ids.peer}`, { name: 'phone' })).status, 200);
});

t('the .conf is saved under the peer\'s name as a tunnel name; a peer with its own keys gets a template to fill in', async () => {
  assert.is((await api.put(`/api/peers/${ids.peer}`, { name: 'Anna\'s phone (work)' })).status, 200);
  await go(`peers/${ids.peer}`);
  await page.reload({ waitUntil: 'networkidle0' }); // the address of the test before: load it afresh
  await drive.h1Is('Anna\'s phone (work)');
  await drive.clickButton('Download the .conf file');
  const conf = (await api.get(`/api/peers/${ids.peer}/config`)).text;
  assert.is((await downloaded('Anna-s-phone-wo.conf')).toString(), conf);
  // A name with nothing of the set left falls back to wgcp-peerN.
  const own = (await api.post(`/api/servers/${ids.server}/peers`, { name: '電話', publicKey: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=', allowInternet: false })).json;
  await go(`peers/${own.id}`);
  await drive.h1Is('電話');
  assert.ok(await drive.js<boolean>(`!document.querySelector('img.qr')`), 'no QR code without a private key');
  await drive.clickButton('Download a .conf template');
  const template = (await downloaded(`wgcp-peer${own.id}.conf`)).toString();
  const server = (await api.get(`/api/servers/${ids.server}?peers=none`)).json;
  assert.match(template, /\nPrivateKey = <this peer's private key>\n/);
  assert.match(template, new RegExp(`\\nAddress = ${own.ip}/32, ${own.ip6}/128\\n`));
  assert.match(template, `\nPublicKey = ${server.publicKey}\n`);
  assert.match(template, `\nEndpoint = ${server.endpoint}\n`);
  // Only the server's networks, as wgcpd's own .conf would route them.
  assert.match(template, `\nAllowedIPs = ${peerAllowedIps(server, false)}\n`);
  assert.is((await api.put(`/api/peers/${ids.peer}`, { name: 'phone' })).status, 200);
});

t('a backup from the page: encrypted with a passphrase (sent as its header), plain without one, a short one refused', async () => {
  await go('access');
  await drive.h1Is('Access');
  await page.type('#backup-passphrase', 'short');
  await drive.clickButton('Download a backup');
  assert.match(await drive.js<string>(`document.getElementById('backup-passphrase-error')?.textContent ?? ''`), /at least 8 characters/);
  await drive.typeInto('backup-passphrase', 'correct horse battery');
  await drive.clickButton('Download a backup');
  const encrypted = await eventually('an encrypted backup', () => fs.readdirSync(downloads).find((f) => f.endsWith('.wgcpenc')));
  await downloaded(encrypted);
  assert.not.ok(fs.readFileSync(path.join(downloads, encrypted)).subarray(0, 15).toString() === 'SQLite format 3');
  const plainOut = path.join(tempDir('wgcp-decrypted-'), 'db');
  await decryptFile(path.join(downloads, encrypted), 'correct horse battery', plainOut);
  assert.is(fs.readFileSync(plainOut).subarray(0, 15).toString(), 'SQLite format 3', 'the passphrase typed opens it');
  await drive.typeInto('backup-passphrase', '');
  await drive.clickButton('Download a backup');
  const plain = await eventually('a plain backup', () => fs.readdirSync(downloads).find((f) => f.endsWith('.db')));
  assert.is((await downloaded(plain)).subarray(0, 15).toString(), 'SQLite format 3');
});

t('revoking the key one signed in with: asked in the page, warned of the sign-out, told how to make a new key', async () => {
  const mine = (await api.post('/api/apikeys', { name: 'mine' })).json;
  await page.evaluate(`fetch('/api/session', { method: 'DELETE' })`);
  await signIn(mine.key);
  await go('access');
  await drive.hasText('#main table', 'mine');
  await drive.js(`[...document.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === 'Revoke API key mine').click()`);
  await drive.waitFor(`document.querySelector('dialog.ask')?.open`);
  const question = await drive.js<string>(`document.querySelector('dialog.ask').textContent`);
  assert.match(question, 'If you signed in with this API key, you will be signed out');
  assert.match(question, 'wgcp apikey create');
  await drive.accessible('the revoke question');
  await drive.clickButton('Yes, revoke');
  await page.waitForSelector('#signin-key');
  const note = await drive.js<string>(`document.querySelector('.signin [role="alert"]').textContent`);
  assert.match(note, 'You revoked the API key "mine" that you signed in with');
  assert.match(note, 'wgcp apikey create');
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': mine.key })).status, 401);
  await signIn();
});

t('a server the kernel could not bring up: the banner and its pages say why, not only a tooltip; its page shows the last kernel repair', async () => {
  const repair = { at: new Date().toISOString(), repairs: 3, kinds: { peer: 2, nft: 1 } };
  const failed = await startTestDaemon({ options: { events: { schedule: false }, kernel: kernelWithFailedServer(1, 'UDP port 51820 is in use by another program', repair) } });
  const context = await browser.createBrowserContext();
  try {
    assert.is((await client(failed).post('/api/servers', { name: 'lab', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id, 1);
    const other = await context.newPage();
    const otherWatch = await watchPage(other, failed.url);
    const look = driver(other);
    await other.goto(`${failed.url}/`, { waitUntil: 'networkidle0' });
    await other.type('#signin-key', failed.key);
    await other.keyboard.press('Enter');
    await look.h1Is('Overview');
    await look.hasText('.banner', 'could not be brought up: UDP port 51820 is in use by another program');
    assert.not.match(await look.js<string>(`document.querySelector('.banner').textContent`), 'kernel backend is off');
    await look.hasText('#main table', 'failed: UDP port 51820 is in use by another program');
    await other.goto(`${failed.url}/#/servers/1`, { waitUntil: 'networkidle0' });
    await look.hasText('.facts', 'failed: UDP port 51820 is in use by another program');
    await look.hasText('.facts', '2 peers, 1 packet filter');
    await look.accessible('a failed server');
    assert.equal([...otherWatch.consoleErrors, ...otherWatch.cspViolations, ...otherWatch.foreign], []);
  } finally {
    await context.close();
    await failed.stop();
  }
});

t('nothing logged an error, broke the CSP or left the origin', () => {
  assert.equal(watch.consoleErrors, []);
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.foreign, []);
});

t.run();
