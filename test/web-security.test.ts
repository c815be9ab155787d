// The dashboard's session in a real browser: the cookie is out of the page's script's
// reach, a page of another site can neither change anything with it nor frame the
// dashboard, and signing out (here or elsewhere) ends the session.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { dashboardPage, type DashboardPage } from './helpers/signed-in-page';
import { browserSuite } from './web-support';

const t = browserSuite('dashboard session in chromium: HttpOnly cookie, cross-site refusals, sign-out');

let d: TestDaemon;
let { browser, page, watch } = {} as DashboardPage;
let evil: http.Server;
let evilUrl = '';
let cookie = '';

// Another site (127.0.0.2 is not 127.0.0.1) whose page tries to use the dashboard's session.
function evilPage(target: string): string {
  const body = JSON.stringify({ name: 'by-fetch', endpoint: 'evil.example:51001', mode: 'forward' });
  return `<!doctype html><title>elsewhere</title>
<form id="f" method="POST" action="${target}/api/servers" enctype="text/plain">
<input name='{"name":"by-form","endpoint":"evil.example:51000","mode":"forward","x":"' value='"}'></form>
<iframe id="frame" src="${target}/"></iframe>
<script>
fetch(${JSON.stringify(`${target}/api/servers`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body: ${JSON.stringify(body)} })
  .then(() => { window.fetchDone = 'answered'; }, () => { window.fetchDone = 'failed'; });
</script>`;
}

t.before(async () => {
  d = await startTestDaemon();
  evil = http.createServer((_req, res) => { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end(evilPage(d.url)); });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.2', resolve));
  evilUrl = `http://127.0.0.2:${(evil.address() as AddressInfo).port}/`;
  ({ browser, page, watch } = await dashboardPage(d, { signIn: true }));
});
t.after(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
  await d?.stop();
});

const serverNames = async () => (await client(d).get('/api/servers')).json.map((s: { name: string }) => s.name);

t('the session cookie is HttpOnly and SameSite=Strict: the page\'s script cannot read it', async () => {
  const jar = await page.cookies();
  const session = jar.find((c) => c.name === 'wgcp_session');
  assert.ok(session, 'the browser holds the session cookie');
  assert.is(session!.httpOnly, true);
  assert.is(session!.sameSite, 'Strict');
  assert.is(session!.path, '/');
  assert.not.match(String(await page.evaluate('document.cookie')), /wgcp_session/);
  cookie = `wgcp_session=${session!.value}`;
});

t('a page of another site cannot create a server with the session, by fetch or by form, nor frame the dashboard', async () => {
  const other = await browser.newPage();
  const framing: string[] = [];
  other.on('console', (m) => { if (/frame-ancestors|Refused to (display|frame)/.test(m.text())) framing.push(m.text()); });
  await other.goto(evilUrl, { waitUntil: 'networkidle0' });
  await other.waitForFunction('window.fetchDone !== undefined');
  const [answer] = await Promise.all([other.waitForNavigation(), other.evaluate(`document.getElementById('f').submit()`)]);
  assert.ok(answer && [401, 403].includes(answer.status()), `the form post was answered ${answer?.status()}`);
  assert.equal(await serverNames(), []);
  // The frame loaded nothing of the dashboard: CSP frame-ancestors 'none' stopped it.
  await other.goto(evilUrl, { waitUntil: 'networkidle0' });
  const framed = other.frames().find((f) => f.url().startsWith(d.url));
  const inside = framed ? await framed.evaluate('document.querySelector("#app") !== null').catch(() => false) : false;
  assert.is(inside, false);
  assert.ok(framing.length > 0, 'chromium said it refused to frame the page');
  await other.close();
});

t('the browser\'s own cookie sent with another site\'s Origin is 403; from the page\'s origin it works', async () => {
  const body = { name: 'direct', endpoint: 'vpn.example.com:51820', mode: 'forward' };
  assert.is((await call(d.url, 'POST', '/api/servers', body, { Cookie: cookie, Origin: evilUrl.slice(0, -1) })).status, 403);
  assert.equal(await serverNames(), []);
  assert.is((await call(d.url, 'POST', '/api/servers', body, { Cookie: cookie, Origin: d.url })).status, 201);
});

t('sign-out ends the session: the sign-in comes back and the old cookie is refused', async () => {
  await page.evaluate(`[...document.querySelectorAll('button')].find((b) => b.textContent === 'Sign out').click()`);
  await page.waitForSelector('#signin-key');
  assert.is((await call(d.url, 'GET', '/api/servers', undefined, { Cookie: cookie })).status, 401);
  assert.ok(!(await page.cookies()).some((c) => c.name === 'wgcp_session'), 'the cookie is cleared');
  await page.reload({ waitUntil: 'networkidle0' });
  await page.waitForSelector('#signin-key');
});

t('a session ended elsewhere brings the sign-in back at the next call', async () => {
  await page.type('#signin-key', d.key);
  await page.keyboard.press('Enter');
  await page.waitForFunction(`document.querySelector('main h1')?.textContent === 'Overview'`);
  await page.waitForFunction(`document.querySelector('.live')?.textContent === 'Live'`);
  const session = (await page.cookies()).find((c) => c.name === 'wgcp_session')!;
  const seen = watch.consoleErrors.length;
  assert.is((await call(d.url, 'DELETE', '/api/session', undefined, { Cookie: `wgcp_session=${session.value}`, Origin: d.url })).status, 204);
  await page.evaluate(`location.hash = '#/devices'`);
  await page.waitForSelector('#signin-key');
  // The calls that found the session gone (the devices list, or a reload the live stream
  // asked for just before) are the 401s Chromium logs; nothing else may be.
  const refused = watch.consoleErrors.splice(seen);
  assert.ok(refused.length >= 1 && refused.every((e) => /^Failed to load resource: the server responded with a status of 401 /.test(e)), refused.join('\n'));
});

t('nothing logged an error, broke the CSP or left the origin', () => {
  assert.equal(watch.consoleErrors, []);
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.foreign, []);
});

t.run();
