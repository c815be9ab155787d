// The access schedule in the dashboard (issue 25), in chromium: set on the peer's page with
// the windows editor, refused with the API's words naming the field, saved as typed, and
// shown in the peers table and on the peer's page.
import * as assert from 'uvu/assert';
import { dashboardPage, type DashboardPage } from './helpers/signed-in-page';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { browserSuite } from './web-support';

const t = browserSuite('dashboard in chromium: a peer\'s access schedule');

let d: TestDaemon;
let { browser, page, drive } = {} as DashboardPage;
let api: ReturnType<typeof client>;
const ids = { server: 0, peer: 0 };

t.before(async () => {
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  api = client(d);
  ids.server = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  ids.peer = (await api.post(`/api/servers/${ids.server}/peers`, { name: 'kid-tablet' })).json.id;
  ({ browser, page, drive } = await dashboardPage(d, { viewport: { width: 1200, height: 900 }, signIn: true }));
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});

t('the windows editor refuses an unknown zone in the API\'s words, then saves the schedule as typed', async () => {
  await page.goto(`${d.url}/#/peers/${ids.peer}`, { waitUntil: 'networkidle0' });
  await drive.h1Is('kid-tablet');
  await drive.hasText('#schedule-hint', 'Now: always');
  await drive.setChecked('schedule-on', true);
  await page.waitForSelector('#schedule-zone');
  await drive.typeInto('schedule-zone', 'Mars/Olympus');
  await drive.clickButton('Save schedule');
  await drive.waitFor(`document.getElementById('schedule-error')?.textContent.includes('schedule.timezone')`);
  assert.is((await api.get(`/api/peers/${ids.peer}`)).json.schedule, null);
  await drive.typeInto('schedule-zone', 'Europe/Berlin');
  await drive.setChecked('schedule-0-sat', true);
  await drive.setValue('schedule-0-from', '07:30');
  await drive.setValue('schedule-0-to', '01:00');
  await drive.hasText('#schedule-form', 'runs into the next day');
  await drive.clickButton('Add a window');
  await drive.setChecked('schedule-1-mon', false);
  await drive.setChecked('schedule-1-tue', false);
  await drive.setChecked('schedule-1-wed', false);
  await drive.setChecked('schedule-1-thu', false);
  await drive.setChecked('schedule-1-fri', false);
  await drive.setChecked('schedule-1-sun', true);
  await drive.clickButton('Save schedule');
  await drive.hasText('#schedule-hint', 'Europe/Berlin');
  const saved = (await api.get(`/api/peers/${ids.peer}`)).json.schedule;
  assert.equal(saved, { timezone: 'Europe/Berlin', windows: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'], from: '07:30', to: '01:00' },
    { days: ['sun'], from: '08:00', to: '18:00' },
  ] });
  await drive.hasText('dd', 'Mon–Sat 07:30–01:00 (next day); Sun 08:00–18:00 (Europe/Berlin)');
  await drive.accessible('the peer page with its schedule editor');
});

t('the peers table marks a scheduled peer, and one its schedule holds off says why', async () => {
  // A window that is never open now: off for its schedule.
  const nowHour = new Date().getUTCHours();
  const from = `${String((nowHour + 2) % 24).padStart(2, '0')}:00`;
  const to = `${String((nowHour + 3) % 24).padStart(2, '0')}:00`;
  const off = await api.post(`/api/servers/${ids.server}/peers`, { name: 'night-only', schedule: { timezone: 'UTC', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from, to }] } });
  assert.equal(off.json.disabledReasons, ['schedule']);
  await page.goto(`${d.url}/#/servers/${ids.server}`, { waitUntil: 'networkidle0' });
  await drive.hasText('#peers tr', 'night-only');
  const row = await drive.js<string>(`[...document.querySelectorAll('#peers tbody tr')].find((r) => r.textContent.includes('night-only')).textContent`);
  assert.match(row, /Off: outside its schedule/);
  assert.match(row, /on a schedule/);
  const plain = await drive.js<string>(`[...document.querySelectorAll('#peers tbody tr')].find((r) => r.textContent.includes('kid-tablet')).textContent`);
  assert.match(plain, /on a schedule/);
});

t.run();
