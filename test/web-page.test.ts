// The dashboard in Debian's chromium against a real wgcpd, as its user drives it: sign in
// by typing the key, add a server and a peer through the forms, scan the peer's QR code,
// flip its switches, see field errors beside their fields and changes made elsewhere
// without a reload; every view passes axe-core, fits a phone, and nothing logs an error,
// breaks the CSP or leaves the origin. With WGCP_SCREENSHOTS=1 (npm run screenshots) it
// saves the README's screenshots in docs/screenshots; a plain run writes nothing there.
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'puppeteer-core';
import { call, client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { Receiver, eventually } from './helpers/receiver';
import { SmtpServer } from './helpers/smtp';
import { browserSuite, ensureWebBuilt, launchChromium, SCREENSHOTS, watchPage, type PageWatch } from './web-support';
import { driver, SCREENSHOTS_WANTED } from './web-drive';
import { readQrCode } from './helpers/qr';

const t = browserSuite('dashboard in chromium: forms, QR code, switches, live updates, accessibility', ['zbarimg', 'python3:aiosmtpd']);

let d: TestDaemon;
let api: ReturnType<typeof client>;
let browser: Browser;
let page: Page;
let watch: PageWatch;
let smtp: SmtpServer;
let receiver: Receiver;
const ids = { server: 0, peer: 0 };

t.before(async () => {
  ensureWebBuilt();
  [smtp, receiver] = await Promise.all([SmtpServer.start('wgcp', 'pa55word'), Receiver.start()]);
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  api = client(d);
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 860 });
  watch = await watchPage(page, d.url);
  drive = driver(page);
  js = drive.js;
  if (SCREENSHOTS_WANTED) fs.mkdirSync(SCREENSHOTS, { recursive: true });
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
  await smtp?.stop();
  await receiver?.close();
});

let js: ReturnType<typeof driver>['js'];
let drive: ReturnType<typeof driver>;
const waitFor = (expr: string) => drive.waitFor(expr);
const h1Is = (text: string) => drive.h1Is(text);
const hasText = (sel: string, text: string) => drive.hasText(sel, text);
const typeInto = (id: string, text: string) => drive.typeInto(id, text);
const setValue = (id: string, value: string) => drive.setValue(id, value);
const setChecked = (id: string, on: boolean) => drive.setChecked(id, on);
const clickButton = (text: string) => drive.clickButton(text);
const accessible = (view: string) => drive.accessible(view);
const fieldError = (id: string) => drive.fieldError(id);
const shot = (name: string) => drive.shot(name);

t('signs in by typing the key: the field has focus, Enter sends it', async () => {
  await page.goto(`${d.url}/`, { waitUntil: 'networkidle0' });
  await waitFor(`document.activeElement?.id === 'signin-key'`);
  await accessible('sign-in');
  await shot('sign-in');
  await page.keyboard.type(d.key);
  await page.keyboard.press('Enter');
  await h1Is('Overview');
  await hasText('.live', 'Live');
});

t('a wrong field shows the API\'s error beside it; corrected, the server is added', async () => {
  await clickButton('Add a server');
  await h1Is('Add a server');
  await accessible('server form');
  await page.type('#server-name', 'home');
  await page.type('#server-endpoint', 'not an endpoint');
  await page.keyboard.press('Enter');
  const error = await fieldError('server-endpoint');
  assert.match(error, /^Endpoint must be host:port/);
  assert.is(await js('document.activeElement.id'), 'server-endpoint');
  await accessible('server form with an error');
  await typeInto('server-endpoint', 'vpn.example.com:51820');
  await page.keyboard.press('Enter');
  await h1Is('home');
  const servers = (await api.get('/api/servers')).json;
  assert.is(servers.length, 1);
  assert.is(servers[0].endpoint, 'vpn.example.com:51820');
  ids.server = servers[0].id;
});

t('adds a peer through its form, and its QR code, read by zbarimg from a screenshot, is the API\'s .conf', async () => {
  await clickButton('Add a peer');
  await h1Is('Add a peer');
  await accessible('peer form');
  await page.type('#peer-name', 'phone');
  await page.type('#peer-email', 'phone@example.com');
  await page.keyboard.press('Enter');
  await h1Is('phone');
  const peers = (await api.get(`/api/servers/${ids.server}/peers`)).json;
  assert.is(peers.length, 1);
  ids.peer = peers[0].id;
  assert.is(peers[0].email, 'phone@example.com');
  await waitFor(`(() => { const img = document.querySelector('img.qr'); return img && img.complete && img.naturalWidth > 0; })()`);
  const png = path.join(tempDir('wgcp-qr-'), 'qr.png');
  await (await page.$('img.qr'))!.screenshot({ path: png });
  const conf = (await api.get(`/api/peers/${ids.peer}/config`)).text;
  assert.match(conf, /^\[Interface\]\nPrivateKey = /);
  assert.is(readQrCode(png), conf);
  await accessible('peer view');
  await shot('peer');
});

t('the switches change the peer, and the API agrees', async () => {
  const peer = () => api.get(`/api/peers/${ids.peer}`).then((r) => r.json);
  assert.is((await peer()).enabled, true);
  await page.click('#switch-enabled');
  await eventually('peer off', async () => ((await peer()).enabled === false ? true : undefined));
  assert.equal((await peer()).disabledReasons, ['admin']);
  await waitFor(`document.getElementById('switch-enabled').checked === false && !document.getElementById('switch-enabled').disabled`);
  await page.click('#switch-enabled');
  await eventually('peer on', async () => ((await peer()).enabled === true ? true : undefined));
  const internet = (await peer()).allowInternet;
  await waitFor(`!document.getElementById('switch-allowInternet').disabled`);
  await page.click('#switch-allowInternet');
  await eventually('internet access flipped', async () => ((await peer()).allowInternet === !internet ? true : undefined));
});

t('a peer\'s traffic is drawn from the history: the chart, the totals in words, the points as a table', async () => {
  // Three closed 5-minute buckets as the usage job writes them (the job itself is proven with
  // real traffic in the history suites); here the page and its API are what is tested.
  const now = Math.floor(Date.now() / 1000);
  const bucket = now - (now % 300);
  const add = d.daemon.app.store.db.prepare('INSERT INTO traffic_5m (t, subject, rx_bytes, tx_bytes) VALUES (?, ?, ?, ?)');
  for (const [ago, rx, tx] of [[3, 1_000_000, 4_000_000], [2, 2_000_000, 8_000_000], [1, 3_000_000, 12_000_000]]) add.run(bucket - ago * 300, ids.peer, rx, tx);
  await page.goto(`${d.url}/#/peers/${ids.peer}`, { waitUntil: 'networkidle0' });
  await page.reload({ waitUntil: 'networkidle0' }); // the same address as the test before: load it afresh
  await hasText('.traffic-total', 'In the last 48 hours');
  const total = await js<string>(`document.querySelector('.traffic-total').textContent`);
  assert.match(total, 'In the last 48 hours: 23 MiB to the peer, 5.7 MiB from it.');
  assert.ok(await js<boolean>(`!!document.querySelector('.chart canvas')`), 'uPlot drew the chart');
  assert.is(await js<number>(`document.querySelectorAll('#traffic-h ~ details tbody tr, section[aria-labelledby="traffic-h"] details tbody tr').length`), 3);
  await clickButton('400 days');
  await hasText('section[aria-labelledby="traffic-h"]', 'In the last 400 days');
  await accessible('peer traffic');
});

t('limit and expiry are set through the settings form; an address outside the subnet is refused beside its field', async () => {
  await typeInto('edit-dataLimitGiB', '5');
  await setValue('edit-expiresAt', '2031-06-30T18:00');
  await clickButton('Save settings');
  await eventually('limit saved', async () => ((await api.get(`/api/peers/${ids.peer}`)).json.dataLimitGB === 5 ? true : undefined));
  const saved = (await api.get(`/api/peers/${ids.peer}`)).json;
  assert.is(new Date(saved.expiresAt).getTime(), new Date(await js<string>(`new Date('2031-06-30T18:00').toISOString()`)).getTime());
  await typeInto('edit-ip', '192.0.2.10');
  watch.expectFailure(`/api/peers/${ids.peer}`);
  await clickButton('Save settings');
  // The API's "ip …" said with the field's label.
  assert.match(await fieldError('edit-ip'), /^Address 192\.0\.2\.10 is not a host address of the server subnet/);
  assert.is((await api.get(`/api/peers/${ids.peer}`)).json.ip, saved.ip);
});

t('speed limits are set through the settings form and shown in the peers table; one out of range is refused beside its field', async () => {
  await page.goto(`${d.url}/#/peers/${ids.peer}`, { waitUntil: 'networkidle0' });
  await page.reload({ waitUntil: 'networkidle0' });
  await typeInto('edit-downloadLimitMbps', '20.5');
  await typeInto('edit-uploadLimitMbps', '5');
  await clickButton('Save settings');
  await eventually('limits saved', async () => ((await api.get(`/api/peers/${ids.peer}`)).json.downloadLimitMbps === 20.5 ? true : undefined));
  assert.is((await api.get(`/api/peers/${ids.peer}`)).json.uploadLimitMbps, 5);
  await typeInto('edit-uploadLimitMbps', '20000');
  await clickButton('Save settings');
  assert.match(await fieldError('edit-uploadLimitMbps'), /0\.1 to 10000/);
  assert.is((await api.get(`/api/peers/${ids.peer}`)).json.uploadLimitMbps, 5);
  await page.goto(`${d.url}/#/servers/${ids.server}`, { waitUntil: 'networkidle0' });
  await hasText('#peers', 'down 20.5 Mbit/s, up 5 Mbit/s');
  await page.goto(`${d.url}/#/peers/${ids.peer}`, { waitUntil: 'networkidle0' });
});

t('the networks behind a peer and the client options are set through the settings form and reach the .conf', async () => {
  await page.reload({ waitUntil: 'networkidle0' });
  await typeInto('edit-networks', '10.93.0.1/24');
  await typeInto('edit-dns', '9.9.9.9, 1.1.1.1');
  await typeInto('edit-clientAllowedIPs', '10.93.0.0/24, 192.168.1.0/24');
  await typeInto('edit-persistentKeepalive', '0');
  await typeInto('edit-mtu', '1380');
  await clickButton('Save settings');
  await eventually('options saved', async () => ((await api.get(`/api/peers/${ids.peer}`)).json.mtu === 1380 ? true : undefined));
  const saved = (await api.get(`/api/peers/${ids.peer}`)).json;
  assert.equal([saved.networks, saved.dns, saved.clientAllowedIPs, saved.persistentKeepalive], [['10.93.0.0/24'], ['9.9.9.9', '1.1.1.1'], ['10.93.0.0/24', '192.168.1.0/24'], 0]);
  const conf = (await api.get(`/api/peers/${ids.peer}/config`)).text;
  assert.match(conf, /\nDNS = 9\.9\.9\.9, 1\.1\.1\.1\nMTU = 1380\n/);
  await typeInto('edit-dns', '');
  await clickButton('Save settings');
  await eventually('back to the server default', async () => ((await api.get(`/api/peers/${ids.peer}`)).json.dns === null ? true : undefined));
});

t('sends the peer its configuration by mail through the SMTP settings saved on the mail page', async () => {
  await page.goto(`${d.url}/#/mail`, { waitUntil: 'networkidle0' });
  await h1Is('Mail');
  await accessible('mail settings');
  await setChecked('smtp-enabled', true);
  await typeInto('smtp-server', '127.0.0.1');
  await typeInto('smtp-port', String(smtp.port));
  await setChecked('smtp-useTLS', false);
  await setChecked('smtp-useAuth', true);
  await typeInto('smtp-username', 'wgcp');
  await typeInto('smtp-password', 'pa55word');
  await typeInto('smtp-fromEmail', 'not-an-address');
  watch.expectFailure('/api/settings/smtp');
  await clickButton('Save mail settings');
  assert.match(await fieldError('smtp-fromEmail'), /^From address must be an e-mail address/);
  await typeInto('smtp-fromEmail', 'vpn@router.example');
  await clickButton('Save mail settings');
  await eventually('SMTP saved', async () => ((await api.get('/api/settings/smtp')).json.enabled === true ? true : undefined));
  await page.goto(`${d.url}/#/peers/${ids.peer}`, { waitUntil: 'networkidle0' });
  await h1Is('phone');
  await clickButton('Send the configuration');
  const [mail] = await smtp.waitFor(1);
  assert.equal(mail.rcptTos, ['phone@example.com']);
  assert.ok(mail.parts.some((p) => p.filename?.endsWith('.conf')));
  await hasText('.notice', 'Configuration mailed to phone@example.com');
});

t('a peer added and a peer renamed through the API show without a reload', async () => {
  await js(`window.__sameDocument = true`);
  await page.click('.crumbs a[href="#/servers/' + ids.server + '"]');
  await h1Is('home');
  await hasText('#peers', 'phone');
  await api.post(`/api/servers/${ids.server}/peers`, { name: 'laptop-from-the-api' });
  await hasText('#peers', 'laptop-from-the-api');
  await hasText('.count', '2 peers');
  await page.click(`#peers a[href="#/peers/${ids.peer}"]`);
  await h1Is('phone');
  await api.put(`/api/peers/${ids.peer}`, { name: 'phone-renamed' });
  await h1Is('phone-renamed');
  assert.is(await js('window.__sameDocument'), true);
});

t('registration tokens: a new one is shown whole once, with a copy button, and the API knows it', async () => {
  await page.goto(`${d.url}/#/servers/${ids.server}/tokens`, { waitUntil: 'networkidle0' });
  await hasText('h2', 'Registration tokens');
  await clickButton('Make a token');
  await waitFor(`document.getElementById('fresh-token')?.value.length === 36`);
  const token = await js<string>(`document.getElementById('fresh-token').value`);
  assert.equal((await api.get(`/api/servers/${ids.server}/tokens`)).json.map((x: { token: string }) => x.token), [token]);
  await clickButton('Copy');
  await hasText('.notice', 'Token copied');
  await accessible('registration tokens');
  await page.goto(`${d.url}/#/devices`, { waitUntil: 'networkidle0' });
  await h1Is('Devices');
  await accessible('devices');
});

t('access: a new API key is shown once and works, an access token may expire, and revoking one ends it', async () => {
  await page.goto(`${d.url}/#/access`, { waitUntil: 'networkidle0' });
  await h1Is('Access');
  await page.type('#key-name', 'script');
  await clickButton('Make an API key');
  await waitFor(`document.getElementById('key-fresh')?.value.startsWith('wgk_')`);
  const key = await js<string>(`document.getElementById('key-fresh').value`);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': key })).status, 200);
  await hasText('#main table', 'script');
  await page.type('#token-name', 'prometheus');
  await page.type('#token-days', '30');
  await clickButton('Make an access token');
  await waitFor(`document.getElementById('token-fresh')?.value.startsWith('wgt_')`);
  const token = await js<string>(`document.getElementById('token-fresh').value`);
  assert.ok((await api.get('/api/access-tokens')).json.some((c: { name: string; expiresAt: string | null }) => c.name === 'prometheus' && c.expiresAt !== null));
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { Authorization: `Bearer ${token}` })).status, 200);
  await accessible('access');
  await js(`[...document.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === 'Revoke API key script').click()`);
  await waitFor(`document.querySelector('dialog.ask')?.open`);
  await accessible('the question before revoking');
  await clickButton('Yes, revoke');
  await eventually('the key revoked', async () => ((await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': key })).status === 401 ? true : undefined));
});

t('webhooks: added through the form, a test send reaches the receiver and shows in the delivery log', async () => {
  await page.goto(`${d.url}/#/servers/${ids.server}/webhooks`, { waitUntil: 'networkidle0' });
  await clickButton('Add a webhook');
  await page.type('#newhook-name', 'receiver');
  await page.type('#newhook-url', receiver.url);
  await clickButton('Add webhook');
  await hasText('#main table', 'receiver');
  await accessible('webhooks');
  await page.click('#main table a');
  await h1Is('receiver');
  await clickButton('Send a test event');
  await hasText('.test-send', 'Delivered: the receiver answered 200');
  assert.ok(receiver.received.length >= 1);
  await hasText('#main table', 'test');
  await accessible('webhook');
});

t('every view fits a phone\'s width and the overview is keyboard-first: the skip link, then the navigation', async () => {
  await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
  for (const [view, heading] of [['', 'Overview'], [`servers/${ids.server}`, 'home'], [`peers/${ids.peer}`, 'phone-renamed'], ['mail', 'Mail']]) {
    await page.goto(`${d.url}/#/${view}`, { waitUntil: 'networkidle0' });
    await h1Is(heading);
    assert.ok(await js<boolean>('document.documentElement.scrollWidth <= window.innerWidth'), `${view || 'overview'} scrolls sideways on a phone`);
    if (view.startsWith('peers')) await shot('peer-phone');
  }
  await page.setViewport({ width: 1200, height: 860 });
  await page.goto(`${d.url}/#/`, { waitUntil: 'networkidle0' });
  await h1Is('Overview');
  await accessible('overview');
  await shot('overview');
  // Loaded afresh, nothing has focus yet: the first Tab is the skip link.
  await page.reload({ waitUntil: 'networkidle0' });
  await h1Is('Overview');
  await page.keyboard.press('Tab');
  assert.is(await js('document.activeElement.textContent'), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.is(await js('document.activeElement.id'), 'main');
  await page.goto(`${d.url}/#/servers/${ids.server}`, { waitUntil: 'networkidle0' });
  await hasText('#peers', 'phone-renamed');
  await shot('server');
});

t('nothing logged an error, broke the CSP or left the origin, and the live stream was used', () => {
  assert.equal(watch.consoleErrors, []);
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.foreign, []);
  assert.ok(watch.requests.some((r) => r.startsWith(`WS ${d.url.replace('http', 'ws')}/api/events`)), 'the page followed /api/events');
  assert.ok(watch.requests.length > 30, `${watch.requests.length} requests seen`);
});

t.run();
