// The peer page's networks and access in chromium: a peer's networks and what it may reach
// read as plain sentences, and lanAccess/reachableFrom saved from their small form; the peer
// form's networks and client options on a phone in German and Chinese: labelled in the
// language, no sideways scroll, a bad value refused beside its field before anything is sent,
// and what only the API can tell (an overlap) beside its field too.
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'puppeteer-core';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { browserSuite, ensureWebBuilt, launchChromium } from './web-support';
import { pageWords } from './web-words';
import { driver } from './web-drive';

const t = browserSuite('dashboard in chromium: a peer\'s networks and access as sentences, and its access form');

let d: TestDaemon;
let browser: Browser;
let page: Page;
let drive: ReturnType<typeof driver>;
let peerId = 0;
let serverSubnet = '';
let serverId = 0;

t.before(async () => {
  ensureWebBuilt();
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  const api = client(d);
  const made = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json;
  const server = made.id;
  serverId = server;
  serverSubnet = made.address;
  const peer = await api.post(`/api/servers/${server}/peers`, { name: 'branch', networks: ['10.209.0.0/24'], lanAccess: 'lan' });
  assert.is(peer.status, 201, peer.text);
  peerId = peer.json.id;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  drive = driver(page);
  await page.goto(`${d.url}/`, { waitUntil: 'networkidle0' });
  await page.waitForSelector('#signin-key');
  await page.type('#signin-key', d.key);
  await page.keyboard.press('Enter');
  await drive.h1Is('Overview');
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});

const sentences = () => drive.js<string[]>(`[...document.querySelectorAll('section[aria-labelledby="reach-h"] li')].map((li) => li.textContent)`);

t('the peer page says what the peer and each of its networks may reach, and from where it may be reached', async () => {
  await page.goto(`${d.url}/#/peers/${peerId}`, { waitUntil: 'networkidle0' });
  await drive.h1Is('branch');
  await drive.waitFor(`!!document.getElementById('reach-h')`);
  assert.equal(await sentences(), [
    'This peer may reach: every network of the router and its own addresses',
    'This peer\'s network 10.209.0.0/24 may reach: every network of the router and its own addresses',
    'Hosts outside the tunnels may open connections to this peer and its networks from: nowhere (replies and port forwards still pass)',
  ]);
  await drive.accessible('peer networks and access');
});

t('lanAccess and reachableFrom are saved from the form, and the sentences follow', async () => {
  await drive.typeInto('reach-lanAccess', '');
  await drive.typeInto('reach-reachableFrom', 'lan');
  await page.click('section[aria-labelledby="reach-h"] button[type="submit"]');
  await drive.waitFor(`document.querySelector('section[aria-labelledby="reach-h"] li:last-child').textContent.endsWith('from: the router\\'s networks')`);
  const saved = await client(d).get(`/api/peers/${peerId}`);
  assert.equal([saved.json.lanAccess, saved.json.reachableFrom], [[], 'lan']);
  assert.match((await sentences())[0], /none of the router's networks/);
});

const CLIENT_FIELDS = ['networks', 'dns', 'clientAllowedIPs', 'persistentKeepalive', 'mtu'];
const submitSettings = () => page.click('section[aria-labelledby="edit-h"] button[type="submit"]');

t('a reach field that is neither "lan" nor prefixes is refused beside it, before sending', async () => {
  await drive.typeInto('reach-lanAccess', 'everything');
  await page.click('section[aria-labelledby="reach-h"] button[type="submit"]');
  assert.is(await drive.fieldError('reach-lanAccess'), 'May reach the router\'s networks must be "lan" or prefixes separated by commas, such as 192.168.1.0/24 (not everything)');
  assert.equal((await client(d).get(`/api/peers/${peerId}`)).json.lanAccess, []);
});

for (const [language, code] of [['German', 'de'], ['Chinese', 'zh-CN']]) {
  t(`in ${language} at 390 px: the networks and client options are labelled in ${language}, fit the width, and each bad value is refused beside its field before sending`, async () => {
    const words = pageWords(code);
    await client(d).put(`/api/peers/${peerId}`, { networks: ['10.209.0.0/24'], dns: null, clientAllowedIPs: null, persistentKeepalive: 25, mtu: 1380 });
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
    await page.goto(`${d.url}/#/`, { waitUntil: 'networkidle0' }); // the peer's page drawn anew, its forms refilled
    await page.goto(`${d.url}/#/peers/${peerId}`, { waitUntil: 'networkidle0' });
    await page.select('.language select', code);
    await drive.waitFor(`document.getElementById('edit-h')?.textContent === ${JSON.stringify(words['peer.sec.settings'])}`);
    await drive.waitFor(`document.getElementById('edit-persistentKeepalive').value === '25'`);
    const labels = await drive.js<string[]>(`${JSON.stringify(CLIENT_FIELDS)}.map((f) => document.querySelector('label[for=edit-' + f + ']').textContent)`);
    assert.equal(labels, ['networksLabel', 'dnsLabel', 'routesLabel', 'keepaliveLabel', 'mtuLabel'].map((k) => words[`client.${k}`]));
    assert.is(await drive.scrollsSideways(), false, 'no sideways scroll');

    // "abc" as the keepalive was sent as null (Number("abc") is NaN, JSON null): the server's default, saved without a word.
    for (const [field, value] of [['networks', '10.209.0.0/24, nope'], ['dns', '1.1.1.x'], ['clientAllowedIPs', '10.0.0.0/99'], ['persistentKeepalive', 'abc'], ['mtu', '5']]) await drive.typeInto(`edit-${field}`, value);
    await submitSettings();
    const label = (k: string) => words[`client.${k}Label`];
    const fill = (key: string, bad: string) => words[key].replace('{bad}', bad);
    assert.equal(await drive.fieldErrors('edit-'), {
      'edit-networks': `${label('networks')} ${fill('check.prefixes', 'nope')}`,
      'edit-dns': `${label('dns')} ${fill('check.addresses', '1.1.1.x')}`,
      'edit-clientAllowedIPs': `${label('routes')} ${fill('check.routes', '10.0.0.0/99')}`,
      'edit-persistentKeepalive': `${label('keepalive')} ${words['check.whole']}`,
      'edit-mtu': `${label('mtu')} ${words['check.between'].replace('{min}', '1280').replace('{max}', '9000')}`,
    });
    for (const field of CLIENT_FIELDS) assert.ok((await drive.fieldError(`edit-${field}`)).startsWith(labels[CLIENT_FIELDS.indexOf(field)]), `${field}: tied to its field`);
    assert.is(await drive.scrollsSideways(), false, 'no sideways scroll with the errors shown');
    await drive.accessible(`the peer form's errors in ${language} at 390 px`);
    const kept = (await client(d).get(`/api/peers/${peerId}`)).json;
    assert.equal([kept.persistentKeepalive, kept.mtu, kept.networks], [25, 1380, ['10.209.0.0/24']], 'nothing was sent');

    // Good values are saved; what only the API can tell (a network over the server's subnet) shows beside its field.
    for (const [field, value] of [['dns', '192.168.1.1, fd00::1'], ['clientAllowedIPs', 'split'], ['persistentKeepalive', '0'], ['mtu', '1420']]) await drive.typeInto(`edit-${field}`, value);
    await drive.typeInto('edit-networks', serverSubnet);
    await submitSettings();
    const overlap = await drive.fieldError('edit-networks');
    assert.match(overlap, new RegExp(`^${label('networks')} \\S+ overlaps the subnet`), overlap);
    assert.equal(Object.keys(await drive.fieldErrors('edit-')), ['edit-networks']);
    await drive.typeInto('edit-networks', '10.209.0.0/24');
    await submitSettings();
    await drive.waitFor(`!document.querySelector('section[aria-labelledby="edit-h"] .field-error') && !!document.querySelector('.notice p')`);
    const saved = (await client(d).get(`/api/peers/${peerId}`)).json;
    assert.equal([saved.dns, saved.clientAllowedIPs, saved.persistentKeepalive, saved.mtu], [['192.168.1.1', 'fd00::1'], 'split', 0, 1420]);
    await page.select('.language select', 'en');
  });
}

t('in German at 390 px, a new peer gets its networks and client options from "More settings": a bad one opens it and shows under its field, good ones are in its first .conf', async () => {
  const words = pageWords('de');
  await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
  await page.goto(`${d.url}/#/servers/${serverId}/peers/new`, { waitUntil: 'networkidle0' });
  await page.select('.language select', 'de');
  await drive.h1Is(words['peers.add']);
  await drive.typeInto('peer-name', 'site-b');
  await page.click('form details summary');
  const labels = await drive.js<string[]>(`${JSON.stringify(CLIENT_FIELDS)}.map((f) => document.querySelector('label[for=peer-' + f + ']').textContent)`);
  assert.equal(labels, ['networksLabel', 'dnsLabel', 'routesLabel', 'keepaliveLabel', 'mtuLabel'].map((k) => words[`client.${k}`]));
  for (const [field, value] of [['networks', '10.210.0.0/24'], ['dns', '192.168.1.1'], ['clientAllowedIPs', 'full'], ['persistentKeepalive', '25'], ['mtu', '99999']]) await drive.typeInto(`peer-${field}`, value);
  await drive.js(`document.querySelector('form details').open = false`);
  await drive.clickButton(words['peerf.submit']);
  assert.is(await drive.fieldError('peer-mtu'), `${words['client.mtuLabel']} ${words['check.between'].replace('{min}', '1280').replace('{max}', '9000')}`);
  assert.is(await drive.js<boolean>(`document.querySelector('form details').open`), true, 'the folded section opened to show it');
  assert.is(await drive.scrollsSideways(), false);
  await drive.accessible('the add-peer form with its client options, in German at 390 px');
  await drive.typeInto('peer-mtu', '1380');
  await drive.clickButton(words['peerf.submit']);
  await drive.h1Is('site-b');
  const made = (await client(d).get(`/api/servers/${serverId}/peers?q=site-b`)).json[0];
  assert.equal([made.networks, made.dns, made.clientAllowedIPs, made.persistentKeepalive, made.mtu], [['10.210.0.0/24'], ['192.168.1.1'], 'full', 25, 1380]);
  const conf = (await client(d).get(`/api/peers/${made.id}/config`)).text;
  assert.match(conf, /^DNS = 192\.168\.1\.1$/m);
  assert.match(conf, /^MTU = 1380$/m);
  assert.match(conf, /^PersistentKeepalive = 25$/m);
  await page.select('.language select', 'en');
});

t.run();
