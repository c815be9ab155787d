// The page in the owner's language: every catalogue has English's keys, no more, no fewer,
// with the same {values}; each of the fields' words (locales/fields.ts) has every language;
// every key is used by a view; in chromium a German browser gets
// German words and German numbers at once, the switch changes the language (and it is kept
// after a reload), and each language passes axe-core.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { dashboardPage, DESKTOP, PHONE, type DashboardPage } from './helpers/signed-in-page';
import { browserSuite, REPO, seedPeers } from './web-support';
import { literalsOf, pageLiterals } from './web-literals';
import { catalogue, fieldWords, LOCALES, PAGE_LANGUAGES, pageWords } from './web-words';

const SRC = path.join(REPO, 'web', 'src');

/** English's keys and words: en.ts's and English's column of fields.ts, as the page's build reads them. */
const english = () => pageWords('en');
const values = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

const c = suite('message catalogues: complete, and every key used');

c('English has keys, and every other catalogue has exactly them with the same {values}', () => {
  const en = english();
  assert.ok(Object.keys(en).length > 20, 'English\'s keys were read');
  const others = fs.readdirSync(LOCALES).filter((f) => f.endsWith('.json'));
  assert.equal(others.sort(), ['de.json', 'es.json', 'fr.json', 'zh-CN.json']);
  for (const f of others) {
    const words = pageWords(f.slice(0, -5));
    assert.equal(Object.keys(en).filter((k) => !(k in words)), [], `${f} misses these keys`);
    assert.equal(Object.keys(words).filter((k) => !(k in en)), [], `${f} has keys English has not`);
    for (const k of Object.keys(en)) assert.equal(values(words[k]), values(en[k]), `${f} ${k}: its {values}`);
    for (const k of Object.keys(en)) assert.ok(words[k].trim().length > 0, `${f} ${k} is empty`);
  }
});

c('the fields\' words (fields.ts): every key has each language, no more, none empty, the same {values}, and is in no catalogue', () => {
  const fields = fieldWords();
  assert.ok(Object.keys(fields).length >= 10, 'the fields\' words were read');
  for (const [key, words] of Object.entries(fields)) {
    assert.equal(Object.keys(words).sort(), [...PAGE_LANGUAGES].sort(), `fields.ts ${key}: its languages`);
    for (const lang of PAGE_LANGUAGES) {
      assert.ok(words[lang].trim().length > 0, `fields.ts ${key} is empty in ${lang}`);
      assert.equal(values(words[lang]), values(words.en), `fields.ts ${key} in ${lang}: its {values}`);
    }
  }
  for (const lang of PAGE_LANGUAGES) {
    assert.equal(Object.keys(fields).filter((k) => k in catalogue(lang)), [], `keys in both fields.ts and the ${lang} catalogue`);
  }
});

c('every key is used by the page, and every key the page uses is in English', () => {
  const en = english();
  const sources: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { if (e.name !== 'locales') walk(p); } else if (/\.tsx?$/.test(e.name)) sources.push(fs.readFileSync(p, 'utf8'));
    }
  };
  walk(SRC);
  const all = sources.join('\n');
  assert.equal(Object.keys(en).filter((k) => !all.includes(`'${k}'`)), [], 'keys no view uses');
  const used = [...all.matchAll(/\bt\('([\w.]+)'/g)].map((m) => m[1]);
  assert.equal([...new Set(used)].filter((k) => !(k in en)), [], 'keys used but not in English');
});

/** Words that stay as they are in every language, each with why. */
const KEPT_ENGLISH: { file: string; why: string }[] = [
  // A .conf template is a file for WireGuard: its keys are English, and so are its comments.
  { file: 'conf-file.ts', why: 'the .conf template is a file for WireGuard, not the page' },
];

c('no view writes words of its own: every word a person reads comes from the catalogues', () => {
  const left = pageLiterals(SRC).filter((l) => !KEPT_ENGLISH.some((k) => k.file === l.file));
  assert.equal(left.map((l) => `${l.file}:${l.line} ${l.text}`), [], 'English words in a view: put them in locales/en.ts and the four JSON files, or a field\'s in locales/fields.ts');
});

c('the search for words left in a view finds each kind of them', () => {
  const found = literalsOf('fixture.tsx', `
    export const V = () => <>
      <h2>Port forwards</h2>
      <TextField label="Router port" placeholder="vpn.example.com:51820" name="listenPort" />
      <button class="quiet primary">{busy ? 'Sending…' : 'Save'}</button>
      <code>wgcp restore FILE</code>
      <p>{t('peer.state')} · URL</p>
    </>;
    notify('Peer settings saved');
    const why = \`Server \${name} could not be brought up\`;
  `).map((l) => l.text);
  assert.equal(found, ['Port forwards', 'label="Router port"', 'Sending…', 'Save', 'Peer settings saved', 'Server … could not be brought up']);
});

c.run();

const t = browserSuite('the page in the owner\'s language, in chromium');
let d: TestDaemon;
let { page, browser, watch, drive, go, signIn } = {} as DashboardPage;
const ids = { server: 0, peer: 0, hook: 0, device: 0 };

t.before(async () => {
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  const api = client(d);
  ids.server = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.70.0.1/16' })).json.id;
  seedPeers(d.daemon.app, ids.server, 1000, [10, 70]);
  // One of everything a view shows: a peer with a limit, an expiry and a schedule, a webhook
  // with a delivery, an enrolled device with a forward, a key and a token, mail settings.
  ids.peer = (await api.post(`/api/servers/${ids.server}/peers`, { name: 'phone', dataLimitGB: 5, expiresAt: '2099-01-01T00:00:00Z',
    schedule: { timezone: 'Europe/Berlin', windows: [{ days: ['mon', 'tue', 'wed'], from: '08:00', to: '18:00' }] } })).json.id;
  ids.hook = (await api.post(`/api/servers/${ids.server}/webhooks`, { name: 'hook', url: 'http://127.0.0.1:9/x' })).json.id;
  await api.post(`/api/webhooks/${ids.hook}/test`, undefined);
  await api.post('/api/settings/smtp', { enabled: false, server: 'mail.example.com', port: 587, fromEmail: 'vpn@example.com' });
  await api.post('/api/apikeys', { name: 'script', role: 'viewer' });
  await api.post('/api/access-tokens', { name: 'prometheus', expiresInDays: 30 });
  const token = (await api.post(`/api/servers/${ids.server}/tokens`, undefined)).json.token;
  await api.post(`/api/servers/${ids.server}/tokens`, undefined);
  assert.is((await call(d.url, 'POST', '/api/v1/provision', { token, hwid: 'hw-i18n-1' })).status, 200);
  ids.device = (await api.get('/api/devices')).json[0].id;
  await api.post(`/api/devices/${ids.device}/forwards`, { protocol: 'tcp', listenPort: 8022, targetPort: 22 });
  // A browser set to German (Austria first), as navigator.languages says.
  ({ page, browser, watch, drive, go, signIn } = await dashboardPage(d, { languages: ['de-AT', 'de', 'en'] }));
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});

const navText = () => drive.js<string[]>(`[...document.querySelectorAll('header nav a')].map((a) => a.textContent)`);

t('a German browser gets the page in German, numbers in German', async () => {
  await go('');
  await page.waitForSelector('#signin-key');
  await drive.waitFor(`document.querySelector('main button[type=submit]')?.textContent === 'Anmelden'`);
  assert.match(await drive.js<string>(`document.querySelector('label[for=signin-key]').textContent`), /^API-Schlüssel oder Zugriffstoken/);
  await drive.accessible('sign-in in German');
  await signIn();
  await drive.waitFor(`document.querySelector('header nav a')?.textContent === 'Übersicht'`);
  assert.equal(await navText(), ['Übersicht', 'Geräte', 'E-Mail', 'Zugang', 'Protokoll']);
  assert.is(await drive.js<string>('document.documentElement.lang'), 'de');
  await drive.h1Is('Übersicht');
  await drive.waitFor(`[...document.querySelectorAll('.cards dd')][1]?.textContent === '1.002'`);
  await drive.hasText('#main table', '0 / 1.002 Peers');
  await go(`servers/${ids.server}`);
  await drive.waitFor(`document.querySelector('.count')?.textContent === '1–50 von 1.002 Peers'`);
  await go(`peers/${ids.peer}`);
  await drive.waitFor(`document.getElementById('state-h')?.textContent === 'Zustand'`);
  assert.match(await drive.js<string>(`document.querySelector('.usage-line').textContent`), /^Diesen Monat verbraucht: 0 B von 5 GiB \(0\s%\)$/);
  assert.is(await drive.js<string>(`document.querySelector('label[for=switch-enabled]').textContent`), 'Peer an');
  assert.equal(await drive.js<string[]>(`[...document.querySelectorAll('nav.sections button')].map((b) => b.textContent)`),
    ['Übersicht', 'Einstellungen', 'Zugriff', 'Netze', 'Zeitplan', 'Datenverkehr', 'Weitergeben']);
  // Day names and the schedule's words by Intl and the catalogue.
  await drive.hasText('.facts', 'Mo–Mi 08:00–18:00 (Europe/Berlin)');
  await drive.hasText('#schedule-form legend', 'Zeitfenster 1');
  await go('devices');
  await drive.h1Is('Geräte');
});

/** Every view but the sign-in (`#/` addresses), and what shows once it is drawn. */
const views = (): [string, string][] => [
  ['', '.cards dd'], [`servers/${ids.server}`, '.count'], [`servers/${ids.server}/webhooks`, 'main table'], [`servers/${ids.server}/tokens`, 'main table'],
  [`servers/${ids.server}/edit`, '#server-name'], [`servers/${ids.server}/peers/new`, '#peer-name'], ['servers/new', '#server-name'],
  [`peers/${ids.peer}`, '.usage-bar'], [`webhooks/${ids.hook}`, 'main table'], ['devices', 'main table'], [`devices/${ids.device}`, '.chips'],
  ['mail', '#smtp-server'], ['access', '#key-h'], ['audit', 'ol.audit li'], ['nowhere', 'main h1'],
];

/** English words of two or more that another language says otherwise: none may show in that language. */
function englishPhrases(lang: string): string[] {
  const en = english();
  const other = pageWords(lang);
  return Object.keys(en).filter((k) => other[k] !== en[k]).map((k) => en[k].replace(/\\'/g, "'"))
    .flatMap((text) => text.split(/\{\w+\}/)).map((part) => part.trim()).filter((part) => part.length >= 12 && /[a-z]{2,} [a-z]{2,}/.test(part));
}

// German (the longest words) and Chinese at both widths; French and Spanish on a desktop.
for (const [lang, overview, widths] of [['de', 'Übersicht', [DESKTOP, PHONE]], ['zh-CN', '概览', [DESKTOP, PHONE]], ['fr', 'Vue d’ensemble', [DESKTOP]], ['es', 'Resumen', [DESKTOP]]] as const) {
  t(`every view in ${lang}: no English left, axe-core finds nothing${widths.length > 1 ? ', nothing scrolls sideways at 390 px' : ''}`, async () => {
    await page.setViewport(DESKTOP);
    await go('');
    await page.select('.language select', lang);
    await drive.waitFor(`document.querySelector('header nav a')?.textContent === ${JSON.stringify(overview)}`);
    const phrases = englishPhrases(lang);
    for (const viewport of widths) {
      await page.setViewport(viewport);
      for (const [view, drawn] of views()) {
        await go(view);
        await drive.waitFor(`!!document.querySelector(${JSON.stringify(drawn)})`);
        // Folded parts open, so that their words are read too.
        await drive.js(`document.querySelectorAll('details').forEach((e) => { e.open = true; })`);
        const text = await drive.js<string>('document.body.innerText');
        assert.equal(phrases.filter((p) => text.includes(p)), [], `English words on #/${view} in ${lang}`);
        assert.not.ok(await drive.scrollsSideways(), `#/${view} in ${lang} scrolls sideways at ${viewport.width} px`);
        if (viewport === DESKTOP) await drive.accessible(`#/${view} in ${lang}`);
        if (process.env.WGCP_LOOK) await page.screenshot({ path: path.join(process.env.WGCP_LOOK, `${lang}-${viewport.width}-${view.replace(/\//g, '_') || 'overview'}.png`), fullPage: true });
      }
    }
  });
}

t('the switch changes the language at once, each passes axe-core, and the choice is kept', async () => {
  await page.setViewport(DESKTOP);
  await go(`servers/${ids.server}`);
  await drive.waitFor(`!!document.querySelector('.count')`);
  const expected: Record<string, string> = { fr: 'Vue d’ensemble', es: 'Resumen', 'zh-CN': '概览', en: 'Overview' };
  for (const [lang, overview] of Object.entries(expected)) {
    await page.select('.language select', lang);
    await drive.waitFor(`document.querySelector('header nav a')?.textContent === ${JSON.stringify(overview)}`);
    assert.is(await drive.js<string>('document.documentElement.lang'), lang);
    await drive.waitFor(`!!document.querySelector('.count')`);
    await drive.accessible(`server page in ${lang}`);
  }
  await page.select('.language select', 'fr');
  await drive.waitFor(`document.querySelector('header nav a')?.textContent === 'Vue d’ensemble'`);
  await page.reload({ waitUntil: 'networkidle0' });
  await drive.waitFor(`document.querySelector('header nav a')?.textContent === 'Vue d’ensemble'`);
  await drive.waitFor(`/^1–50 sur 1\\s002 pairs$/.test(document.querySelector('.count')?.textContent ?? '')`);
});

t('nothing logged an error, broke the CSP or left the origin', () => {
  assert.equal(watch.consoleErrors, []);
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.foreign, []);
});

t.run();
