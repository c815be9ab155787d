// The dashboard in chromium as a router's owner meets it in the first hour (issue 27): IPv6
// shown and edited, the kernel backend's state said on every view, the traffic chart's quiet
// hours at 0, every form error at once in the field's words, expiry explained, one unit for
// data, long names that never widen a phone's page. Sessions, files and credentials are in
// web-owner-access.test.ts.
import * as assert from 'uvu/assert';
import { dashboardPage, LONG, PHONE, type DashboardPage } from './helpers/signed-in-page';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { eventually } from './helpers/receiver';
import { browserSuite } from './web-support';

const t = browserSuite('dashboard in chromium: what a router\'s owner meets in the first hour');

let d: TestDaemon;
let { browser, page, watch, drive, signIn, go } = {} as DashboardPage;
let api: ReturnType<typeof client>;
const ids = { server: 0, peer: 0 };

t.before(async () => {
  d = await startTestDaemon({ options: { events: { schedule: false } } });
  api = client(d);
  ({ browser, page, watch, drive, signIn, go } = await dashboardPage(d, { viewport: { width: 1200, height: 860 } }));
});
t.after(async () => {
  await browser?.close();
  await d?.stop();
});


t('a server made in the form has the IPv6 address typed; its page shows it, and a peer gets one of its addresses', async () => {
  await signIn();
  await drive.clickButton('Add a server');
  await drive.h1Is('Add a server');
  await page.type('#server-name', 'home');
  await page.type('#server-endpoint', 'vpn.example.com:51820');
  await page.click('summary');
  await page.type('#server-address6', 'fd00:77:1:2::1/64');
  await page.keyboard.press('Enter');
  await drive.h1Is('home');
  const server = (await api.get('/api/servers?peers=none')).json[0];
  ids.server = server.id;
  assert.is(server.address6, 'fd00:77:1:2::1/64');
  await drive.hasText('.facts', 'fd00:77:1:2::1/64');
  await drive.clickButton('Add a peer');
  await page.type('#peer-name', 'phone');
  await page.keyboard.press('Enter');
  await drive.h1Is('phone');
  const peer = (await api.get(`/api/servers/${ids.server}/peers`)).json[0];
  ids.peer = peer.id;
  assert.match(peer.ip6, /^fd00:77:1:2::/);
  await drive.hasText('.facts', peer.ip6);
  await go(`servers/${ids.server}`);
  await drive.hasText('#peers', peer.ip6);
});

t('a peer\'s IPv6 address is edited in its settings, and the API agrees', async () => {
  await go(`peers/${ids.peer}`);
  await drive.h1Is('phone');
  assert.is(await drive.js('document.getElementById("edit-ip6").value'), (await api.get(`/api/peers/${ids.peer}`)).json.ip6);
  await drive.typeInto('edit-ip6', 'fd00:77:1:2::99');
  await drive.clickButton('Save settings');
  await eventually('ip6 saved', async () => ((await api.get(`/api/peers/${ids.peer}`)).json.ip6 === 'fd00:77:1:2::99' ? true : undefined));
  await drive.hasText('.facts', 'fd00:77:1:2::99');
});

t('a server is made IPv4 only from its edit page (address6 null); one whose peers hold IPv6 addresses is refused beside the field', async () => {
  const bare = (await api.post('/api/servers', { name: 'bare', endpoint: 'vpn.example.com:51830', mode: 'forward' })).json;
  assert.match(bare.address6, /^fd/);
  for (const [id, name] of [[ids.server, 'home'], [bare.id, 'bare']] as const) {
    await go(`servers/${id}/edit`);
    await drive.waitFor(`document.getElementById('server-name')?.value === ${JSON.stringify(name)}`);
    await page.click('summary');
    await drive.setChecked('server-ipv4Only', true);
    assert.ok(await drive.js<boolean>(`document.getElementById('server-address6').disabled`));
    if (name === 'home') watch.expectFailure(`/api/servers/${id}`);
    await drive.clickButton('Save');
    if (name === 'home') {
      assert.is(await drive.fieldError('server-address6'), 'IPv6 tunnel address cannot be removed while peers hold IPv6 addresses');
      assert.match((await api.get(`/api/servers/${id}?peers=none`)).json.address6, /^fd00:77:/);
      continue;
    }
    await drive.h1Is(name);
    await eventually('IPv4 only', async () => ((await api.get(`/api/servers/${id}?peers=none`)).json.address6 === null ? true : undefined));
    await drive.hasText('.facts', 'none: IPv4 only');
  }
  assert.is((await api.del(`/api/servers/${bare.id}`)).status, 204);
});

t('with the kernel backend off, every view says changes are stored but not applied, and why', async () => {
  for (const [view, heading] of [['', 'Overview'], [`servers/${ids.server}`, 'home'], [`peers/${ids.peer}`, 'phone'], ['devices', 'Devices'], ['mail', 'Mail'], ['access', 'Access']]) {
    await go(view);
    await drive.h1Is(heading);
    await drive.hasText('.banner', 'changes are stored but not applied');
    assert.match(await drive.js<string>(`document.querySelector('.banner').textContent`), /Why: WGCP_KERNEL=off/, `the banner on ${view || 'the overview'} says why`);
  }
  await drive.accessible('a view with the banner');
});

t('the traffic chart draws hours without traffic as 0 over the whole range, from an axis at 0', async () => {
  const now = Math.floor(Date.now() / 1000);
  const bucket = now - (now % 300);
  const add = d.daemon.app.store.db.prepare('INSERT INTO traffic_5m (t, subject, rx_bytes, tx_bytes) VALUES (?, ?, ?, ?)');
  // Two busy buckets two hours apart, with the buckets between them quiet (left out by the API).
  for (const [ago, rx, tx] of [[25, 5_000_000, 9_000_000], [1, 6_000_000, 10_000_000]]) add.run(bucket - ago * 300, ids.peer, rx, tx);
  assert.is((await api.get(`/api/peers/${ids.peer}/usage?step=5m`)).json.points.length, 2);
  await go(`peers/${ids.peer}`);
  await page.reload({ waitUntil: 'networkidle0' });
  await drive.waitFor(`document.querySelector('.chart')?.dataset.buckets`);
  // 48 hours of 5-minute buckets, every one drawn: the quiet ones as 0, not a line across.
  assert.is(await drive.js<string>(`document.querySelector('.chart').dataset.buckets`), String(48 * 12));
  assert.is(await drive.js<string>(`document.querySelector('.chart').dataset.yMin`), '0');
  assert.is(await drive.js<number>(`document.querySelectorAll('section[aria-labelledby="traffic-h"] details tbody tr').length`), 2, 'the table lists the buckets with traffic');
});

t('a peer busy every 5 minutes of the 48 hours still has its traffic axis start at 0', async () => {
  const busy = (await api.post(`/api/servers/${ids.server}/peers`, { name: 'busy' })).json;
  const now = Math.floor(Date.now() / 1000);
  const bucket = now - (now % 300);
  const add = d.daemon.app.store.db.prepare('INSERT INTO traffic_5m (t, subject, rx_bytes, tx_bytes) VALUES (?, ?, ?, ?)');
  d.daemon.app.store.db.transaction(() => { for (let i = 0; i < 48 * 12; i++) add.run(bucket - i * 300, busy.id, 5_000_000 + i * 1000, 7_000_000 + i * 1000); })();
  await go(`peers/${busy.id}`);
  await drive.waitFor(`document.querySelector('.chart')?.dataset.yMin`);
  assert.is(await drive.js<string>(`document.querySelector('.chart').dataset.yMin`), '0');
  assert.is((await api.del(`/api/peers/${busy.id}`)).status, 204);
});

t('a form shows all its problems at once, each in its field\'s words, before sending anything', async () => {
  await go('servers/new');
  await drive.h1Is('Add a server');
  await page.type('#server-endpoint', 'no port here');
  await page.click('summary');
  await page.type('#server-listenPort', '70000');
  await page.type('#server-mtu', '12');
  const sent = watch.requests.length;
  await drive.clickButton('Add server');
  await drive.waitFor(`document.querySelectorAll('.field-error').length === 4`);
  assert.equal(await drive.fieldErrors('server-'), {
    'server-name': 'Name must not be empty',
    'server-endpoint': 'Endpoint must be host:port, such as vpn.example.com:51820',
    'server-listenPort': 'Listen port must be between 1 and 65535',
    'server-mtu': 'Client MTU must be between 1280 and 9000',
  });
  await drive.waitFor(`document.activeElement.id === 'server-name'`); // the first field with a problem has focus
  assert.equal(watch.requests.slice(sent).filter((r) => r.startsWith('POST')), [], 'nothing was sent');
  // What only wgcpd can judge comes back as a 400 naming the field: said with the label too.
  await drive.typeInto('server-name', 'second');
  await drive.typeInto('server-endpoint', 'vpn.example.com:51820');
  await drive.typeInto('server-listenPort', '51821');
  await drive.typeInto('server-mtu', '1420');
  await drive.typeInto('server-interface', '-bad');
  watch.expectFailure('/api/servers');
  await drive.clickButton('Add server');
  assert.match(await drive.fieldError('server-interface'), /^Interface must be an interface name/);
});

t('a past expiry is refused in the page, and the expiry field says the peer and its keys are deleted', async () => {
  await go(`servers/${ids.server}/peers/new`);
  await drive.h1Is('Add a peer');
  assert.match(await drive.js<string>(`document.getElementById('peer-expiresAt-hint').textContent`), /the peer and its keys are deleted/);
  await page.type('#peer-name', 'too-late');
  await drive.setValue('peer-expiresAt', '2020-01-01T10:00');
  await drive.typeInto('peer-dataLimitGiB', 'ten');
  const sent = watch.requests.length;
  await drive.clickButton('Add peer');
  await drive.waitFor(`document.querySelectorAll('.field-error').length === 2`);
  assert.match(await drive.fieldError('peer-expiresAt'), /^Expires must be in the future/);
  assert.is(await drive.fieldError('peer-dataLimitGiB'), 'Monthly data limit (GiB) must be a number of GiB with at most one decimal, such as 1.5');
  assert.equal(watch.requests.slice(sent).filter((r) => r.startsWith('POST')), []);
  assert.is((await api.get(`/api/servers/${ids.server}/peers?q=too-late`)).json.length, 0);
});

t('one unit for data: the limit is asked and shown in GiB, never "GB"', async () => {
  assert.is((await api.put(`/api/peers/${ids.peer}`, { dataLimitGB: 50 })).status, 200);
  await go(`peers/${ids.peer}`);
  await drive.h1Is('phone');
  await drive.hasText('.usage-line', 'of 50 GiB');
  assert.match(await drive.js<string>(`document.querySelector('label[for="edit-dataLimitGiB"]').textContent`), /^Monthly data limit \(GiB\)/);
  assert.not.match(await drive.js<string>('document.body.innerText'), /\bGB\b/);
});

t('a limit in tenths: 1.5 typed in the settings is saved exact and shown as such; the contract\'s dataLimitGB reads it rounded up', async () => {
  await go(`peers/${ids.peer}`);
  await drive.h1Is('phone');
  await drive.typeInto('edit-dataLimitGiB', '1.5');
  await drive.clickButton('Save settings');
  await eventually('1.5 saved', async () => ((await api.get(`/api/peers/${ids.peer}`)).json.dataLimitGiB === 1.5 ? true : undefined));
  assert.is((await api.get(`/api/peers/${ids.peer}`)).json.dataLimitGB, 2);
  await drive.hasText('.usage-line', 'of 1.5 GiB');
  assert.is(await drive.js<string>(`document.getElementById('edit-dataLimitGiB').value`), '1.5');
  // A comma, as German and French write it, is a decimal point too.
  await drive.typeInto('edit-dataLimitGiB', '2,5');
  await drive.clickButton('Save settings');
  await eventually('2.5 saved', async () => ((await api.get(`/api/peers/${ids.peer}`)).json.dataLimitGiB === 2.5 ? true : undefined));
  await drive.typeInto('edit-dataLimitGiB', '1.25');
  await drive.clickButton('Save settings');
  assert.match(await drive.fieldError('edit-dataLimitGiB'), /^Monthly data limit \(GiB\) must be a number of GiB with at most one decimal/);
});

t('64-character names: nothing scrolls sideways at 390 px, the overview\'s columns stay in their frame, full names on hover', async () => {
  const server = (await api.post('/api/servers', { name: LONG('s'), endpoint: 'vpn2.example.com:51822', mode: 'forward' })).json;
  const peer = (await api.post(`/api/servers/${server.id}/peers`, { name: LONG('p'), dataLimitGB: 5 })).json;
  assert.is((await api.post('/api/apikeys', { name: LONG('k') })).status, 201);
  assert.is((await api.post('/api/access-tokens', { name: LONG('t') })).status, 201);
  await go('');
  await drive.hasText('#main table', LONG('s'));
  assert.ok(await drive.js<boolean>(`(() => { const w = document.querySelector('.table-wrap'); return w.scrollWidth <= w.clientWidth; })()`), 'the overview\'s table fits its frame at desktop width');
  assert.is(await drive.js<string>(`document.querySelector('#main table a[href="#/servers/${server.id}"]').title`), LONG('s'));
  await page.setViewport(PHONE);
  try {
    for (const [view, heading] of [['', 'Overview'], [`servers/${server.id}`, LONG('s')], [`peers/${peer.id}`, LONG('p')], ['access', 'Access'], [`servers/${server.id}/edit`, 'Edit server']]) {
      await go(view);
      await drive.h1Is(heading);
      await drive.waitFor(`!document.querySelector('.loading')`);
      if (view === 'access') await drive.hasText('#main table', LONG('t'));
      if (view.startsWith('servers/') && !view.endsWith('edit')) await drive.hasText('#peers', LONG('p'));
      const width = await drive.js<number>('document.documentElement.scrollWidth');
      assert.ok(width <= 390, `${view || 'overview'} is ${width} px wide at 390 px`);
    }
    assert.is(await drive.js<string>(`document.querySelector('.crumbs a[href="#/servers/${server.id}"]').title`), LONG('s'));
  } finally {
    await page.setViewport({ width: 1200, height: 860 });
  }
});

t('nothing logged an error, broke the CSP or left the origin', () => {
  assert.equal(watch.consoleErrors, []);
  assert.equal(watch.cspViolations, []);
  assert.equal(watch.foreign, []);
});

t.run();
