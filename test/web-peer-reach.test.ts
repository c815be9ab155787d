// The peer page's networks and access in chromium: a peer's networks and what it may reach
// read as plain sentences, and lanAccess/reachableFrom saved from their small form.
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'puppeteer-core';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { browserSuite, ensureWebBuilt, launchChromium } from './web-support';
import { driver } from './web-drive';

const t = browserSuite('dashboard in chromium: a peer\'s networks and access as sentences, and its access form');

let d: TestDaemon;
let browser: Browser;
let page: Page;
let drive: ReturnType<typeof driver>;
let peerId = 0;

t.before(async () => {
  ensureWebBuilt();
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  const api = client(d);
  const server = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
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

t.run();
