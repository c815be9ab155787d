// The peer page's state in chromium, at 1280 and 390 px: over its data limit, the badge, the
// switch and the usage bar say the same (off, why, red past 100 %); the page's sections are
// reached from its section bar without scrolling past the others, and land under it however
// it wraps (390 and 320 px, English, German, Chinese); the note after adding a peer never
// covers its QR code.
import * as assert from 'uvu/assert';
import { dashboardPage, DESKTOP, PHONE, type DashboardPage } from './helpers/signed-in-page';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { browserSuite } from './web-support';
import { pageWords } from './web-words';
import { restrictOverLimit } from '../src/jobs/usage';

const t = browserSuite('dashboard in chromium: a peer\'s state agrees with itself, its sections, the note beside the QR code');

let d: TestDaemon;
let { browser, page, watch, drive, go } = {} as DashboardPage;
let api: ReturnType<typeof client>;
const ids = { server: 0, over: 0 };
const GIB = 1024 ** 3;

t.before(async () => {
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  api = client(d);
  ids.server = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  ids.over = (await api.post(`/api/servers/${ids.server}/peers`, { name: 'over', dataLimitGB: 5 })).json.id;
  // 6 GiB used of 5: the usage job finds it over its limit and switches it off, as every minute.
  const app = d.daemon.app;
  app.store.tx(() => app.store.usage.addUsage([[ids.over, ids.server, 6 * GIB, 0]]));
  assert.equal(await restrictOverLimit(app), [ids.over]);
  ({ browser, page, watch, drive, go } = await dashboardPage(d, { signIn: true }));
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});

/** The headings the section bar's buttons bring into view, in the bar's order. */
const SECTIONS = ['peer-overview', 'edit-h', 'access-h', 'reach-h', 'schedule-h', 'traffic-h', 'share-h'];
const barLabels = () => drive.js<string[]>(`[...document.querySelectorAll('nav.sections button')].map((b) => b.textContent)`);

/** Each button in turn, from wherever the last left the page: its heading lands under the bar, seen (not covered by it), focused. */
async function eachSectionLandsUnderTheBar(viewport: { width: number; height: number }, language = 'English') {
  for (const [i, heading] of [...SECTIONS.slice(1), SECTIONS[0]].entries()) {
    await drive.js(`document.querySelectorAll('nav.sections button')[${(i + 1) % SECTIONS.length}].click()`);
    const where = await drive.js<{ top: number; bottom: number; navBottom: number; rows: number; focused: boolean; seen: boolean; label: string }>(`(() => {
      const el = document.getElementById(${JSON.stringify(heading)});
      const nav = document.querySelector('nav.sections');
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(Math.min(r.left + 8, innerWidth - 1), r.top + 4);
      const buttons = [...nav.querySelectorAll('button')];
      return { top: r.top, bottom: r.bottom, navBottom: nav.getBoundingClientRect().bottom, focused: document.activeElement === el,
        rows: new Set(buttons.map((b) => Math.round(b.getBoundingClientRect().top))).size,
        seen: !!hit && el.contains(hit) && !nav.contains(hit), label: buttons[${(i + 1) % SECTIONS.length}].textContent };
    })()`);
    const said = `${language} at ${viewport.width} px, ${where.label} (bar of ${where.rows} rows)`;
    assert.ok(where.top >= where.navBottom - 1 && where.top < viewport.height / 2, `${said}: its heading at ${where.top} px, the bar ends at ${where.navBottom}`);
    assert.ok(where.seen, `${said}: its heading is seen, not under the bar`);
    assert.ok(where.focused, `${said} has the focus`);
  }
}

for (const viewport of [DESKTOP, PHONE]) {
  t(`at ${viewport.width} px, over its limit the badge, the switch and the bar agree: off, why, red past 100 %`, async () => {
    await page.setViewport(viewport);
    await go(`peers/${ids.over}`);
    await drive.h1Is('over');
    await drive.waitFor(`!!document.querySelector('.usage-bar')`);
    const seen = await drive.js<{ badge: string; checked: boolean; disabled: boolean; why: string; whyWeight: string; bar: string; bad: string; line: string; now: string }>(`(() => {
      const sw = document.getElementById('switch-enabled');
      const why = document.getElementById('switch-enabled-why');
      const fill = document.querySelector('.usage-bar .fill');
      const probe = document.createElement('span'); probe.style.color = 'var(--bad)'; document.body.append(probe);
      const bad = getComputedStyle(probe).color; probe.remove();
      return { badge: document.querySelector('.state .pill').textContent, checked: sw.checked, disabled: sw.disabled,
        why: why ? why.textContent : '', whyWeight: why ? getComputedStyle(why).fontWeight : '', bar: getComputedStyle(fill).backgroundColor, bad,
        line: document.querySelector('.usage-line').textContent, now: document.querySelector('.usage-bar').getAttribute('aria-valuetext') };
    })()`);
    assert.is(seen.badge, 'Off: over its data limit');
    assert.is(seen.checked, false, 'the switch shows the peer off');
    assert.ok(seen.disabled, 'it cannot be switched on past its limit');
    assert.match(seen.why, /^Off: over its data limit\./);
    assert.ok(Number(seen.whyWeight) >= 600, 'the reason is prominent, not small grey text');
    assert.is(seen.bar, seen.bad, 'the bar is red');
    assert.match(seen.line, /6(\.0)? GiB of 5 GiB \(120\s%, over the limit\)/);
    assert.is(seen.now, '120\u00a0% of 5 GiB'); // a % never wraps away from its number
    await drive.accessible(`over-limit peer at ${viewport.width} px`);
    await drive.shot(viewport === PHONE ? 'peer-over-limit-phone' : 'peer-over-limit');
  });

  t(`at ${viewport.width} px, each section of the peer page is one click from the top`, async () => {
    await page.setViewport(viewport);
    await go(`peers/${ids.over}`);
    await drive.waitFor(`!!document.querySelector('nav.sections')`);
    assert.equal(await barLabels(), ['Overview', 'Settings', 'Access', 'Networks', 'Schedule', 'Traffic', 'Sharing']);
    await eachSectionLandsUnderTheBar(viewport);
  });

  t(`at ${viewport.width} px, the note after adding a peer does not cover its QR code`, async () => {
    await page.setViewport(viewport);
    await go(`servers/${ids.server}/peers/new`);
    await drive.h1Is('Add a peer');
    await drive.typeInto('peer-name', `phone-${viewport.width}`);
    await drive.clickButton('Add peer');
    await drive.h1Is(`phone-${viewport.width}`);
    await drive.waitFor(`!!document.querySelector('.notice p') && document.querySelector('img.qr')?.complete`);
    const overlap = await drive.js<number>(`(() => {
      const a = document.querySelector('.notice p').getBoundingClientRect();
      document.querySelector('img.qr').scrollIntoView({ block: 'nearest' });
      const b = document.querySelector('img.qr').getBoundingClientRect();
      const n = document.querySelector('.notice p').getBoundingClientRect();
      return Math.max(0, Math.min(n.right, b.right) - Math.max(n.left, b.left)) * Math.max(0, Math.min(n.bottom, b.bottom) - Math.max(n.top, b.top));
    })()`);
    assert.is(overlap, 0);
  });
}

t('the add-peer form: no internet access unless ticked, said so; a blank name refused beside the field', async () => {
  await page.setViewport(DESKTOP);
  await go(`servers/${ids.server}/peers/new`);
  await drive.h1Is('Add a peer');
  assert.is(await drive.js<boolean>(`document.getElementById('peer-allowInternet').checked`), false);
  await drive.hasText('#peer-allowInternet-hint', 'Off unless ticked, as in the API');
  await drive.clickButton('Add peer');
  assert.match(await drive.fieldError('peer-name'), /^Name must not be blank/);
  await drive.typeInto('peer-name', 'tablet');
  await drive.clickButton('Add peer');
  await drive.h1Is('tablet');
  const made = (await api.get(`/api/servers/${ids.server}/peers?q=tablet`)).json[0];
  assert.is(made.allowInternet, false);
});

t('words: the switch\'s note says what happened, a missing peer offers no "Try again", the focus ring is not the error outline', async () => {
  await go(`peers/${ids.over}`);
  await drive.h1Is('over');
  await page.click('#switch-allowInternet');
  await drive.hasText('.notice p', 'Internet access allowed');
  watch.expectFailure('/api/peers/999999');
  await go('peers/999999');
  await drive.hasText('.form-error', 'not found');
  assert.is(await drive.js<boolean>(`[...document.querySelectorAll('button')].some((b) => b.textContent === 'Try again')`), false);
  await go(`servers/${ids.server}/peers/new`);
  await drive.h1Is('Add a peer');
  await page.focus('#peer-name');
  await page.keyboard.press('Tab');
  await page.keyboard.down('Shift'); await page.keyboard.press('Tab'); await page.keyboard.up('Shift');
  const ring = await drive.js<{ style: string; color: string; bad: string }>(`(() => {
    const el = document.activeElement; const cs = getComputedStyle(el);
    const probe = document.createElement('span'); probe.style.color = 'var(--bad)'; document.body.append(probe);
    const bad = getComputedStyle(probe).color; probe.remove();
    return { style: cs.outlineStyle, color: cs.outlineColor, bad };
  })()`);
  assert.is(ring.style, 'dashed');
  assert.is.not(ring.color, ring.bad);
});

// The bar wraps on a phone (2 rows at 390 px, 3 at 320 in English and German): whatever its
// height, each heading lands under it. In English, German and Chinese, each checked by axe.
for (const [language, code] of [['English', 'en'], ['German', 'de'], ['Chinese', 'zh-CN']]) {
  t(`in ${language} at 390 and 320 px, the section bar wraps and each section still lands under it`, async () => {
    const words = code === 'en' ? null : pageWords(code);
    await page.setViewport(PHONE);
    await go(`peers/${ids.over}`);
    await drive.waitFor(`!!document.querySelector('nav.sections')`);
    await page.select('.language select', code);
    if (words) await drive.waitFor(`document.querySelector('nav.sections button').textContent === ${JSON.stringify(words['peer.sec.overview'])}`);
    if (words) assert.equal(await barLabels(), ['overview', 'settings', 'access', 'reach', 'schedule', 'traffic', 'sharing'].map((k) => words[`peer.sec.${k}`]));
    for (const viewport of [PHONE, { ...PHONE, width: 320, height: 640 }]) {
      await page.setViewport(viewport);
      await drive.js(`scrollTo(0, 0)`);
      assert.is(await drive.js<number>(`document.documentElement.scrollWidth`), viewport.width, `${language} at ${viewport.width} px: no sideways scroll`);
      await eachSectionLandsUnderTheBar(viewport, language);
    }
    await drive.accessible(`the peer page in ${language} at 320 px`);
    await page.select('.language select', 'en');
    await drive.waitFor(`document.querySelector('nav.sections button').textContent === 'Overview'`);
  });
}

t('at 320 px, a field reached with the keyboard is brought out from behind the bar, which grew when the window narrowed', async () => {
  await page.setViewport(PHONE);
  await go(`peers/${ids.over}`);
  await drive.waitFor(`!!document.getElementById('edit-dns')`);
  await page.setViewport({ ...PHONE, width: 320, height: 640 });
  // Three rows now; two frames for the bar's new height to be told.
  await drive.waitFor(`new Set([...document.querySelectorAll('nav.sections button')].map((b) => Math.round(b.getBoundingClientRect().top))).size === 3`);
  await drive.js(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`);
  // The DNS field's top 20 px above the bar's bottom (behind it, but inside the height it had at 390 px).
  await drive.js(`scrollBy(0, document.getElementById('edit-dns').getBoundingClientRect().top - document.querySelector('nav.sections').getBoundingClientRect().bottom + 20)`);
  await page.focus('#edit-clientAllowedIPs');
  await page.keyboard.down('Shift'); await page.keyboard.press('Tab'); await page.keyboard.up('Shift');
  const where = await drive.js<{ active: string; top: number; navBottom: number }>(`({ active: document.activeElement.id, top: document.activeElement.getBoundingClientRect().top,
    navBottom: document.querySelector('nav.sections').getBoundingClientRect().bottom })`);
  assert.is(where.active, 'edit-dns');
  assert.ok(where.top >= where.navBottom, `the focused field at ${where.top} px, the bar ends at ${where.navBottom}`);
});

t('nothing logged an error, broke the CSP or left the origin', () => {
  assert.equal(watch.consoleErrors, []);
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.foreign, []);
});

t.run();
