// The server's defaults for its peers in chromium: set in the page's server form (add and
// edit), a peer added without options gets them in its .conf, a peer's own value overrides
// one and emptying it goes back to the server's, and the peer forms say each default under
// its field. Bad values are refused under their field before anything is sent (and what
// only the API can tell is shown there too), in German and Chinese on a phone, with axe.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { dashboardPage, PHONE, type DashboardPage } from './helpers/signed-in-page';
import { browserSuite, REPO } from './web-support';

const t = browserSuite('dashboard in chromium: a server\'s defaults for its peers, set in its form and followed by its peers\' .conf');

let d: TestDaemon;
let ui: DashboardPage;
let serverId = 0;
let peerId = 0;

t.before(async () => {
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  ui = await dashboardPage(d, { signIn: true });
});
t.after(async () => {
  await ui?.browser.close();
  await d?.stop();
});

const DEFAULT_FIELDS = ['dns', 'clientAllowedIPs', 'persistentKeepalive', 'mtu', 'lanAccess'];
const server = async () => (await client(d).get(`/api/servers/${serverId}?peers=none`)).json;
const peer = async () => (await client(d).get(`/api/peers/${peerId}`)).json;
const conf = async () => (await client(d).get(`/api/peers/${peerId}/config`)).text;
const submitServer = () => ui.page.click('main form button[type="submit"]');
const submitSettings = () => ui.page.click('section[aria-labelledby="edit-h"] button[type="submit"]');
const serverDefaultLine = (id: string) => ui.drive.js<string | null>(`document.querySelector('#${id}-hint .server-default')?.textContent ?? null`);

t('a server added in the page with its peers\' defaults under "More settings" keeps them', async () => {
  await ui.go('servers/new');
  await ui.drive.typeInto('server-name', 'office');
  await ui.drive.typeInto('server-endpoint', 'vpn.example.com:51820');
  await ui.page.click('form details summary');
  const labels = await ui.drive.js<string[]>(`${JSON.stringify(DEFAULT_FIELDS)}.map((f) => document.querySelector('label[for=server-' + f + ']').textContent)`);
  assert.equal(labels, ['Client DNS', 'Client routes', 'Keepalive', 'Client MTU', 'May reach the router\'s networks']);
  for (const [field, value] of [['dns', '192.168.7.53, fd00::53'], ['clientAllowedIPs', '10.80.0.0/16, 192.168.7.0/24'], ['persistentKeepalive', '15'], ['mtu', '1380'], ['lanAccess', 'lan']]) {
    await ui.drive.typeInto(`server-${field}`, value);
  }
  await submitServer();
  await ui.drive.h1Is('office');
  serverId = Number(/#\/servers\/(\d+)/.exec(ui.page.url())![1]);
  const s = await server();
  assert.equal([s.dns, s.clientAllowedIPs, s.persistentKeepalive, s.mtu, s.lanAccess], ['192.168.7.53, fd00::53', ['10.80.0.0/16', '192.168.7.0/24'], 15, 1380, 'lan']);
  await ui.drive.accessible('the server form');
});

t('a peer added without options says each server default under its field, and its .conf carries them', async () => {
  await ui.go(`servers/${serverId}/peers/new`);
  await ui.drive.h1Is('Add a peer');
  await ui.drive.waitFor(`!!document.querySelector('#peer-dns-hint .server-default')`);
  assert.equal(await Promise.all(['dns', 'clientAllowedIPs', 'persistentKeepalive', 'mtu'].map((f) => serverDefaultLine(`peer-${f}`))), [
    'Server default: 192.168.7.53, fd00::53', 'Server default: 10.80.0.0/16, 192.168.7.0/24', 'Server default: 15', 'Server default: 1380',
  ]);
  await ui.drive.typeInto('peer-name', 'laptop');
  await ui.drive.clickButton('Add peer');
  await ui.drive.h1Is('laptop');
  peerId = Number(/#\/peers\/(\d+)/.exec(ui.page.url())![1]);
  const p = await peer();
  assert.equal([p.dns, p.clientAllowedIPs, p.persistentKeepalive, p.mtu, p.lanAccess], [null, null, null, null, 'lan'], 'the peer follows the server');
  const text = await conf();
  assert.match(text, /^DNS = 192\.168\.7\.53, fd00::53$/m);
  assert.match(text, /^MTU = 1380$/m);
  assert.match(text, /^AllowedIPs = 10\.80\.0\.0\/16, 192\.168\.7\.0\/24$/m);
  assert.match(text, /^PersistentKeepalive = 15$/m);
});

t('a peer\'s own value overrides the server\'s, and emptying it goes back to the server\'s default', async () => {
  await ui.drive.waitFor(`!!document.querySelector('#edit-dns-hint .server-default')`);
  assert.is(await serverDefaultLine('edit-dns'), 'Server default: 192.168.7.53, fd00::53');
  await ui.drive.typeInto('edit-dns', '9.9.9.9');
  await ui.drive.typeInto('edit-persistentKeepalive', '0');
  await submitSettings();
  await ui.drive.waitFor(`!!document.querySelector('.notice p')`);
  assert.equal([(await peer()).dns, (await peer()).persistentKeepalive], [['9.9.9.9'], 0]);
  let text = await conf();
  assert.match(text, /^DNS = 9\.9\.9\.9$/m);
  assert.not.match(text, /PersistentKeepalive/);

  await ui.drive.waitFor(`document.getElementById('edit-dns').value === '9.9.9.9'`);
  await ui.drive.typeInto('edit-dns', '');
  await ui.drive.typeInto('edit-persistentKeepalive', '');
  await submitSettings();
  await ui.drive.waitFor(`document.getElementById('edit-persistentKeepalive').value === ''`);
  await ui.drive.waitFor(`!document.querySelector('section[aria-labelledby="edit-h"] .field-error')`);
  const p = await peer();
  assert.equal([p.dns, p.persistentKeepalive], [null, null], 'back to the server\'s');
  text = await conf();
  assert.match(text, /^DNS = 192\.168\.7\.53, fd00::53$/m);
  assert.match(text, /^PersistentKeepalive = 15$/m);
});

t('the server\'s defaults changed in its edit form reach the peers that follow them; an emptied one goes back to the daemon\'s', async () => {
  await ui.go(`servers/${serverId}/edit`);
  await ui.drive.waitFor(`document.getElementById('server-persistentKeepalive')?.value === '15'`);
  assert.equal(await ui.drive.js<string[]>(`${JSON.stringify(DEFAULT_FIELDS)}.map((f) => document.getElementById('server-' + f).value)`),
    ['192.168.7.53, fd00::53', '10.80.0.0/16, 192.168.7.0/24', '15', '1380', 'lan']);
  await ui.page.click('form details summary');
  await ui.drive.typeInto('server-dns', 'none');
  await ui.drive.typeInto('server-clientAllowedIPs', 'full');
  await ui.drive.typeInto('server-persistentKeepalive', '');
  await ui.drive.typeInto('server-mtu', '');
  await ui.drive.typeInto('server-lanAccess', '');
  await submitServer();
  await ui.drive.h1Is('office');
  const s = await server();
  assert.equal([s.dns, s.clientAllowedIPs, s.persistentKeepalive, s.mtu, s.lanAccess], ['', 'full', 25, null, []]);
  const text = await conf();
  assert.not.match(text, /^DNS/m);
  assert.not.match(text, /^MTU/m);
  assert.match(text, /^AllowedIPs = 0\.0\.0\.0\/0, ::\/0$/m);
  assert.match(text, /^PersistentKeepalive = 25$/m);
});

for (const [language, code] of [['German', 'de'], ['Chinese', 'zh-CN']]) {
  t(`in ${language} at 390 px: the server form's defaults are labelled in ${language}, fit the width, and each bad value is refused under its field, nothing saved`, async () => {
    const words = JSON.parse(fs.readFileSync(path.join(REPO, 'web', 'src', 'locales', `${code}.json`), 'utf8')) as Record<string, string>;
    await ui.page.setViewport(PHONE);
    await ui.go('');
    await ui.go(`servers/${serverId}/edit`);
    await ui.page.select('.language select', code);
    await ui.drive.h1Is(words['serverf.edit']);
    await ui.drive.waitFor(`document.getElementById('server-persistentKeepalive')?.value === '25'`);
    await ui.page.click('form details summary');
    const labels = await ui.drive.js<string[]>(`${JSON.stringify(DEFAULT_FIELDS)}.map((f) => document.querySelector('label[for=server-' + f + ']').textContent)`);
    const expected = [words['client.dnsLabel'], words['client.routesLabel'], words['client.keepaliveLabel'], words['client.mtuLabel'], words['reach.lanAccess']];
    assert.equal(labels, expected);
    assert.is(await ui.drive.js<string>(`document.querySelector('form fieldset legend').textContent`), words['serverf.clientDefaults']);
    assert.is(await ui.drive.scrollsSideways(), false, 'no sideways scroll');

    const before = await server();
    for (const [field, value] of [['dns', '1.1.1.x'], ['clientAllowedIPs', '10.0.0.0/99'], ['persistentKeepalive', 'abc'], ['mtu', '5'], ['lanAccess', 'everything']]) {
      await ui.drive.typeInto(`server-${field}`, value);
    }
    await ui.drive.js(`document.querySelector('form details').open = false`);
    await submitServer();
    await ui.drive.fieldError('server-dns');
    const fill = (key: string, bad: string) => words[key].replace('{bad}', bad);
    assert.equal(await ui.drive.fieldErrors('server-'), {
      'server-dns': `${expected[0]} ${fill('check.addresses', '1.1.1.x')}`,
      'server-clientAllowedIPs': `${expected[1]} ${fill('check.routes', '10.0.0.0/99')}`,
      'server-persistentKeepalive': `${expected[2]} ${words['check.whole']}`,
      'server-mtu': `${expected[3]} ${words['check.between'].replace('{min}', '1280').replace('{max}', '9000')}`,
      'server-lanAccess': `${expected[4]} ${fill('check.reach', 'everything')}`,
    });
    for (const field of DEFAULT_FIELDS) assert.is.not(await ui.drive.fieldError(`server-${field}`), 'not tied to its field', field);
    assert.is(await ui.drive.js<boolean>(`document.querySelector('form details').open`), true, 'the folded section opened to show them');
    assert.is(await ui.drive.scrollsSideways(), false, 'no sideways scroll with the errors shown');
    await ui.drive.accessible(`the server form's errors in ${language} at 390 px`);
    assert.equal(await server(), before, 'nothing was sent');

    // Nine groups pass the page's loose IPv6 check; the API names the field and the page shows it there.
    for (const [field, value] of [['clientAllowedIPs', 'split'], ['persistentKeepalive', '20'], ['mtu', '1420'], ['lanAccess', '']]) await ui.drive.typeInto(`server-${field}`, value);
    await ui.drive.typeInto('server-dns', '1:2:3:4:5:6:7:8:9');
    ui.watch.expectFailure(`/api/servers/${serverId}?`);
    await submitServer();
    const apiError = await ui.drive.fieldError('server-dns');
    assert.ok(apiError.startsWith(`${expected[0]} `), apiError);
    assert.equal(Object.keys(await ui.drive.fieldErrors('server-')), ['server-dns']);
    assert.equal(await server(), before, 'nothing was saved');
    await ui.page.select('.language select', 'en');
    await ui.page.setViewport({ width: 1280, height: 900 });
  });
}

t('nothing logged an error, broke the CSP or left the origin', () => {
  assert.equal(ui.watch.consoleErrors, []);
  assert.equal(ui.watch.cspViolations, []);
  assert.equal(ui.watch.foreign, []);
});

t.run();
