// The dashboard on a 390 px phone and a 1280 px desktop with a big router (1,000 peers, a
// long audit log, credentials with long names): no view scrolls sideways, neither the page
// nor a table inside it; on the phone a table's rows are cards, each value under its
// column's name; a key's role menu shows its words; the audit log says what changed.
import * as assert from 'uvu/assert';
import { dashboardPage, LONG, DESKTOP, PHONE, type DashboardPage } from './helpers/signed-in-page';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { browserSuite, seedPeers } from './web-support';

const t = browserSuite('dashboard on a phone and a desktop: cards, nothing sideways, the audit log in words');

let d: TestDaemon;
let { browser, page, watch, drive, go } = {} as DashboardPage;
let api: ReturnType<typeof client>;
const ids = { server: 0, peer: 0 };

t.before(async () => {
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  api = client(d);
  ids.server = (await api.post('/api/servers', { name: LONG('s'), endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.60.0.1/16' })).json.id;
  seedPeers(d.daemon.app, ids.server, 1000, [10, 60]);
  ids.peer = (await api.post(`/api/servers/${ids.server}/peers`, { name: LONG('p'), dataLimitGB: 5, email: `${'e'.repeat(50)}@example.com` })).json.id;
  // A long audit log: a hundred changes, each naming long values.
  for (let i = 0; i < 100; i++) assert.is((await api.put(`/api/peers/${ids.peer}`, { dataLimitGB: 5 + (i % 7), name: `${LONG('n').slice(0, 60)}${i}` })).status, 200);
  assert.is((await api.put(`/api/peers/${ids.peer}`, { name: LONG('p'), dataLimitGB: 10 })).status, 200);
  assert.is((await api.post('/api/apikeys', { name: LONG('k'), role: 'viewer' })).status, 201);
  assert.is((await api.post('/api/access-tokens', { name: LONG('t') })).status, 201);
  ({ browser, page, watch, drive, go } = await dashboardPage(d, { signIn: true }));
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});


/** What scrolls sideways: the page, or any box inside it that scrolls (form fields aside). */
const sideways = () => drive.js<string[]>(`(() => {
  const out = [];
  if (document.documentElement.scrollWidth > window.innerWidth) out.push('the page: ' + document.documentElement.scrollWidth + ' px');
  for (const el of document.querySelectorAll('body *')) {
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) continue;
    const ox = getComputedStyle(el).overflowX;
    if ((ox === 'auto' || ox === 'scroll') && el.scrollWidth > el.clientWidth + 1) out.push(el.tagName + '.' + el.className + ': ' + el.scrollWidth + ' in ' + el.clientWidth);
  }
  return out; })()`);

const VIEWS: [string, string, string][] = [
  ['', 'Overview', '#main table'],
  [`servers/SERVER`, LONG('s'), '#peers tbody tr'],
  [`servers/SERVER/tokens`, LONG('s'), 'main h2'],
  [`servers/SERVER/webhooks`, LONG('s'), 'main h2'],
  [`servers/SERVER/peers/new`, 'Add a peer', 'form'],
  [`servers/SERVER/edit`, 'Edit server', 'form'],
  [`peers/PEER`, LONG('p'), '.facts'],
  ['devices', 'Devices', 'main p'],
  ['mail', 'Mail', 'form'],
  ['access', 'Access', '#main table'],
  ['audit', 'Audit log', 'ol.audit li'],
];

for (const [size, viewport] of [['390 px', PHONE], ['1280 px', DESKTOP]] as const) {
  t(`at ${size} with 1,000 peers and a long audit log, no view scrolls sideways`, async () => {
    await page.setViewport(viewport);
    for (const [view, heading, shown] of VIEWS) {
      const at = view.replace('SERVER', String(ids.server)).replace('PEER', String(ids.peer));
      await go(at);
      await drive.h1Is(heading);
      await drive.waitFor(`!document.querySelector('.loading') && !!document.querySelector(${JSON.stringify(shown)})`);
      assert.equal(await sideways(), [], `#/${at} at ${size}`);
    }
    await page.setViewport(DESKTOP);
  });
}

t('on a phone the peers are cards: each value under its column\'s name, sorting kept above them', async () => {
  await page.setViewport(PHONE);
  try {
    await go(`servers/${ids.server}`);
    await drive.waitFor(`!!document.querySelector('#peers tbody tr')`);
    const card = await drive.js<{ display: string; labels: string[]; width: number; sorts: number }>(`(() => {
      const tr = document.querySelector('#peers tbody tr');
      return { display: getComputedStyle(tr).display, width: tr.getBoundingClientRect().width,
        labels: [...tr.querySelectorAll('td')].filter((td) => getComputedStyle(td).display !== 'none').map((td) => getComputedStyle(td, '::before').content),
        sorts: [...document.querySelectorAll('#peers thead button')].filter((b) => b.getBoundingClientRect().width > 0).length };
    })()`);
    assert.is(card.display, 'block');
    assert.ok(card.width <= 390, `a card is ${card.width} px wide`);
    assert.equal(card.labels, ['"Address"', '"Status"', '"Used"']);
    assert.is(card.sorts, 5, 'the sort buttons stay on the phone');
    await drive.js(`document.querySelector('#peers').scrollIntoView()`);
    await drive.shot('phone-peers');
    await drive.accessible('peers as cards');
  } finally {
    await page.setViewport(DESKTOP);
  }
});

t('a key\'s role menu shows its words, on a desktop and on a phone', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewport(viewport);
    await go('access');
    await drive.hasText('#main table', LONG('k'));
    const menu = await drive.js<{ width: number; text: string; fits: boolean }>(`(() => {
      const s = [...document.querySelectorAll('#main table select')].find((s) => s.getAttribute('aria-label').includes(${JSON.stringify(LONG('k'))}));
      return { width: s.getBoundingClientRect().width, text: s.selectedOptions[0].textContent, fits: s.getBoundingClientRect().right <= window.innerWidth };
    })()`);
    assert.ok(menu.width >= 180, `the role menu is ${menu.width} px wide at ${viewport.width} px`);
    assert.is(menu.text, 'viewer');
    assert.ok(menu.fits);
    if (viewport === PHONE) {
      await drive.js(`document.querySelector('#main table').scrollIntoView()`);
      await drive.shot('phone-access');
    }
    await drive.accessible(`access at ${viewport.width} px`);
  }
  await page.setViewport(DESKTOP);
});

t('the audit log says each change as a sentence with its fields, when on hover, details expandable', async () => {
  await go('audit');
  await drive.waitFor(`!!document.querySelector('ol.audit li')`);
  const first = await drive.js<{ what: string; time: string; title: string; open: boolean }>(`(() => {
    const li = [...document.querySelectorAll('ol.audit li')].find((l) => l.querySelector('.what').textContent.startsWith('changed peer'));
    const time = li.querySelector('time');
    return { what: li.querySelector('.what').textContent, time: time.textContent, title: time.title, open: li.querySelector('details').open };
  })()`);
  assert.match(first.what, new RegExp(`^changed peer ${ids.peer}: set name \\S+ -> ${LONG("p")}; data limit \\d+ GiB -> 10 GiB$`));
  assert.match(first.time, /second|now|minute/);
  assert.ok(first.title.length > 8, 'the exact time is on hover');
  assert.not.ok(first.open, 'details start closed');
  await drive.js(`[...document.querySelectorAll('ol.audit li')].find((l) => l.querySelector('.what').textContent.startsWith('changed peer')).querySelector('summary').click()`);
  await drive.hasText('ol.audit li details[open] dd', 'data limit');
  await drive.shot('audit');
  // When and who on a desktop take one line, not three.
  const lines = await drive.js<number>(`(() => { const p = document.querySelector('ol.audit li .by'); return Math.round(p.getBoundingClientRect().height / parseFloat(getComputedStyle(p).lineHeight)); })()`);
  assert.is(lines, 1);
  await drive.accessible('audit log');
});

t('nothing logged an error, broke the CSP or left the origin', () => {
  assert.equal(watch.consoleErrors, []);
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.foreign, []);
});

t.run();
