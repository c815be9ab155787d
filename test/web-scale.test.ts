// A server of 10,000 peers in the dashboard: its page shows its first rows, opened from the
// overview and loaded afresh, a search shows what the API counts, sorting and paging are the
// server's and are right. How long these take is bench/dashboard.ts's business (its figures
// and the limits, 1 s and 200 ms, are in bench/RESULTS.md), not this correctness run's.
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { dashboardPage, type DashboardPage } from './helpers/signed-in-page';
import { browserSuite, seedPeers } from './web-support';
import { countLine, openServerCold, openServerInApp, searchTime } from './web-timing';

const t = browserSuite('dashboard at 10,000 peers: rows, searches, sorting and paging come out right');
const PEERS = 10_000;

let d: TestDaemon;
let { browser, page, watch } = {} as DashboardPage;
let serverId = 0;

t.before(async () => {
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  serverId = (await client(d).post('/api/servers', { name: 'big', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.50.0.1/16' })).json.id;
  seedPeers(d.daemon.app, serverId, PEERS, [10, 50]);
  ({ browser, page, watch } = await dashboardPage(d, { viewport: { width: 1200, height: 860 }, signIn: true }));
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});

const total = async (q: string) => Number((await client(d).get(`/api/servers/${serverId}/peers?limit=1&q=${encodeURIComponent(q)}`)).headers.get('x-total-count'));

const firstRow = () => page.evaluate(`document.querySelector('#peers tbody tr')?.textContent`) as Promise<string>;
const countShown = () => page.evaluate(`document.querySelector('.count')?.textContent`) as Promise<string>;

t('the server\'s page shows its first rows and its count, opened from the overview and loaded afresh', async () => {
  for (const open of [() => openServerInApp(page, serverId), () => openServerCold(page, d.url, serverId)]) {
    await open();
    await page.waitForFunction(`document.querySelector('.count')?.textContent === ${JSON.stringify(countLine(PEERS, ''))}`);
    assert.match(await firstRow(), /peer-\d{5}/);
  }
});

t('a search shows what the API counts, and the rows that match', async () => {
  const queries = ['peer-09999', 'peer-099', 'user50', '10.50.20.', 'no-such-peer', ''];
  for (const q of queries) {
    const n = q === '' ? PEERS : await total(q);
    await searchTime(page, q, countLine(n, q));
    assert.is(await countShown(), countLine(n, q), `"${q}"`);
    // Names and addresses are in the row; e-mail addresses are searched but not shown in it.
    if (n > 0 && q !== '' && !q.startsWith('user')) assert.ok((await firstRow()).includes(q), `the first row of "${q}" matches it`);
  }
  // What the seeded names and addresses (10.50.0.2 upwards) hold: wgcpd's counts are right too.
  assert.equal(await Promise.all(['peer-09999', 'peer-099', '10.50.20.', 'no-such-peer'].map(total)), [1, 100, 256, 0]);
});

t('sorting and paging are done by wgcpd and come out right', async () => {
  await page.evaluate(`[...document.querySelectorAll('#peers th button')].find((b) => b.textContent.startsWith('Address')).click()`);
  await page.waitForFunction(`document.querySelector('#peers th[aria-sort="ascending"]')?.textContent.startsWith('Address')`);
  assert.match(await firstRow(), /10\.50\.0\.2(?!\d)/);
  await page.evaluate(`[...document.querySelectorAll('#peers th button')].find((b) => b.textContent.startsWith('Address')).click()`);
  await page.waitForFunction(`document.querySelector('#peers th[aria-sort="descending"]')`);
  // The last of 10,000 addresses from 10.50.0.2 is 10.50.39.17: sorted as numbers, not text.
  await page.waitForFunction(`document.querySelector('#peers tbody tr')?.textContent.includes('10.50.39.17')`);
  await page.evaluate(`[...document.querySelectorAll('.pager button')].find((b) => b.textContent === 'Next page').click()`);
  await page.waitForFunction(`document.querySelector('.count')?.textContent === 'Showing 51–100 of 10,000 peers'`);
  assert.match(await firstRow(), /10\.50\.38\.223(?!\d)/);
});

t('nothing logged an error, broke the CSP or left the origin', () => {
  assert.equal(watch.consoleErrors, []);
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.foreign, []);
});

t.run();
