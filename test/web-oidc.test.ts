// Single sign-on in the real page, in Chromium, against a real OpenID provider
// (oidc-provider on loopback with its own login page): a person in the admins group signs
// in through the provider and lands on the dashboard as admin; signing out ends the
// session here and at the provider and comes back to the sign-in; a person whose groups
// map to no role sees the page saying so and is not signed in; an admin ends another
// person's sessions from the Access view.
import * as assert from 'uvu/assert';
import { dashboardPage, type DashboardPage } from './helpers/signed-in-page';
import { startTestDaemon, type TestDaemon } from './helpers/daemon';
import { freePort, oidcEnv, signInAtProvider as signInOverHttp, startTestProvider, type TestProvider } from './helpers/oidc-provider';
import { call } from './helpers/daemon';
import { browserSuite } from './web-support';

const t = browserSuite('page in chromium: single sign-on through a real OpenID provider');

let provider: TestProvider;
let d: TestDaemon;
let { browser, page, drive } = {} as DashboardPage;

t.before(async () => {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  provider = await startTestProvider(publicUrl, {
    alice: { email: 'alice@example.com', groups: ['wgcp-admins'] },
    bob: { email: 'bob@contractor.example', groups: ['contractors'] },
    olga: { email: 'olga@example.com', groups: ['wgcp-ops'] },
  });
  d = await startTestDaemon({ env: {
    WGCP_LISTEN: `127.0.0.1:${port}`, ...oidcEnv(provider, publicUrl, 'admin=groups:wgcp-admins;operator=groups:wgcp-ops'),
  }, options: { events: { schedule: false } } });
  ({ browser, page, drive } = await dashboardPage(d, { viewport: { width: 1200, height: 860 } }));
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
  await provider?.close();
});

const signedIn = () => drive.js<boolean>("fetch('/api/session').then((r) => r.json()).then((s) => s.signedIn)");

/** From the page's sign-in, through the provider's login page (and its consent), as `login`. */
async function signInAtProvider(login: string): Promise<void> {
  await page.goto(`${d.url}/`, { waitUntil: 'networkidle0' });
  await drive.waitFor(`[...document.querySelectorAll('a.button')].some((a) => a.textContent === 'Sign in with single sign-on')`);
  await Promise.all([page.waitForNavigation(), drive.js("[...document.querySelectorAll('a.button')].find((a) => a.textContent === 'Sign in with single sign-on').click()")]);
  assert.ok(page.url().startsWith(provider.issuer), page.url());
  await page.waitForSelector('input[name=login]');
  await page.type('input[name=login]', login);
  await page.type('input[name=password]', 'any password');
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  // The provider asks once whether wgcp may have the claims.
  if (page.url().startsWith(provider.issuer) && await page.$('input[name=prompt][value=consent]')) {
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  }
}

t('a person in the admins group signs in through the provider and lands on the dashboard as admin', async () => {
  await signInAtProvider('alice');
  assert.ok(page.url().startsWith(`${d.url}/`), page.url());
  await drive.hasText('header .who', 'alice@example.com (alice) · admin');
  // Admin's views are there: the Audit link, and the Access view lists her as signed in.
  await drive.hasText('header nav a', 'Audit');
  await page.goto(`${d.url}/#/access`, { waitUntil: 'networkidle0' });
  await drive.hasText('table.signed-in td', 'alice@example.com');
  assert.is(await signedIn(), true);
});

t('an admin ends every session of another person from the Signed in list', async () => {
  // Olga signs in elsewhere (over HTTP here): her session shows in the list.
  const back = await signInOverHttp(d.url, 'olga');
  const res = await fetch(back.callbackUrl, { redirect: 'manual', headers: { cookie: back.pendingCookie } });
  const olga = res.headers.getSetCookie().find((c) => c.startsWith('wgcp_session='))!.split(';')[0];
  await page.reload({ waitUntil: 'networkidle0' });
  await drive.hasText('table.signed-in td', 'olga@example.com');
  await drive.js(`[...document.querySelectorAll('table.signed-in tr')].find((tr) => tr.textContent.includes('olga@example.com')).querySelector('button').click()`);
  await drive.clickButton('Yes, end sessions');
  await drive.hasText('.notice, [role=status]', 'Ended 1 session of olga@example.com');
  assert.is((await call(d.url, 'GET', '/api/session', undefined, { cookie: olga })).json.signedIn, false);
  assert.is(await signedIn(), true, 'the admin\'s own session stays');
});

t('signing out ends the session here and at the provider, and comes back to the sign-in', async () => {
  await drive.clickButton('Sign out');
  await page.waitForFunction(`location.href.startsWith(${JSON.stringify(provider.issuer)})`);
  await page.waitForSelector('button[name=logout]');
  await Promise.all([page.waitForNavigation(), page.click('button[name=logout]')]);
  assert.is(page.url(), `${d.url}/`);
  await drive.waitFor(`[...document.querySelectorAll('a.button')].some((a) => a.textContent === 'Sign in with single sign-on')`);
  assert.is(await signedIn(), false);
  // The provider's session went too: the next sign-in asks for the login again.
  await Promise.all([page.waitForNavigation(), drive.js("[...document.querySelectorAll('a.button')].find((a) => a.textContent === 'Sign in with single sign-on').click()")]);
  assert.ok(await page.waitForSelector('input[name=login]'));
});

t('a person whose group maps to no role sees a page saying so and is not signed in', async () => {
  await signInAtProvider('bob');
  assert.ok(page.url().startsWith(`${d.url}/api/oidc/callback`), page.url());
  assert.is(await drive.js<string>("document.querySelector('h1').textContent"), 'No access to this router');
  assert.match(await drive.js<string>('document.body.innerText'), /You signed in as bob@contractor\.example, but this router gives that account no role/);
  await Promise.all([page.waitForNavigation(), drive.js("document.querySelector('a').click()")]);
  assert.is(page.url(), `${d.url}/`);
  assert.is(await signedIn(), false);
});

t.run();
