// The page shows a device by the first 8 characters of its device_id (the whole id gets
// the device's keys from the heartbeat); a viewer's page never holds the whole id, not in
// the list, the device's page nor the server's tokens, and an admin's device page shows it.
// In Chromium, against a real daemon.
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'puppeteer-core';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { driver } from './web-drive';
import { browserSuite, ensureWebBuilt, launchChromium } from './web-support';
import { deviceByUuid } from './helpers/device-lookup';
import { pythonDecrypt } from './device-support';

const t = browserSuite('page in chromium: a device_id shown whole to admins only');
const SALT = 'web-device-ids-salt-0123456789';
let d: TestDaemon;
let browser: Browser;
let page: Page;
let drive: ReturnType<typeof driver>;
let viewerKey = '';
let uuid = '';
let deviceId = 0;

t.before(async () => {
  ensureWebBuilt();
  d = await startTestDaemon({ env: { SERVER_SALT: SALT }, options: { events: { schedule: false } } });
  const api = client(d);
  viewerKey = (await api.post('/api/apikeys', { name: 'viewer-key', role: 'viewer' })).json.key;
  const sid = (await api.post('/api/servers', { name: 'office', endpoint: 'vpn.example.com:51820', mode: 'standalone' })).json.id;
  const token = (await api.post(`/api/servers/${sid}/tokens`, undefined)).json.token;
  const r = await call(d.url, 'POST', '/api/v1/provision', { token, hwid: 'page-board' });
  uuid = (pythonDecrypt(r.json.encrypted_config, 'page-board', SALT) as { device_id: string }).device_id;
  deviceId = (await deviceByUuid((p) => api.get(p), uuid)).id;
  browser = await launchChromium();
  page = await browser.newPage();
  drive = driver(page);
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});

async function signIn(key: string): Promise<void> {
  await page.goto(`${d.url}/`, { waitUntil: 'networkidle0' });
  await drive.waitFor(`document.activeElement?.id === 'signin-key'`);
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  await drive.h1Is('Overview');
}

const pageHolds = (text: string) => drive.js<boolean>(`document.documentElement.outerHTML.includes(${JSON.stringify(text)})`);

t('a viewer sees the prefix in the device list and on the device\'s page, never the whole id', async () => {
  await signIn(viewerKey);
  await page.goto(`${d.url}/#/devices`, { waitUntil: 'networkidle0' });
  await drive.hasText('main table', uuid.slice(0, 8));
  assert.is(await pageHolds(uuid), false, 'the list');
  await page.goto(`${d.url}/#/devices/${deviceId}`, { waitUntil: 'networkidle0' });
  await drive.h1Is(`Device ${uuid.slice(0, 8)}`);
  assert.is(await pageHolds(uuid), false, 'the device\'s page');
  await drive.clickButton('Sign out');
  await drive.waitFor(`document.getElementById('signin-key')`);
});

t('an admin\'s device page shows the whole id, marked as a secret', async () => {
  await signIn(d.key);
  await page.goto(`${d.url}/#/devices/${deviceId}`, { waitUntil: 'networkidle0' });
  await drive.h1Is(`Device ${uuid.slice(0, 8)}`);
  await drive.hasText('main dl', uuid);
});

t('the device list says each device\'s own heartbeat interval, as its agent reported it', async () => {
  assert.is((await call(d.url, 'POST', '/api/v1/heartbeat', { device_id: uuid, interval: 45 })).status, 200);
  await page.goto(`${d.url}/#/devices`, { waitUntil: 'networkidle0' });
  await drive.hasText('main table', 'every 45 s');
});

t.run();
