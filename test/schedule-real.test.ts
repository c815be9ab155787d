// Access schedules on a real wgcpd in a router namespace (WGCP_KERNEL=on, wireguard-go): a
// window that closes and one that opens at the next minute, set relative to now in the
// daemon's zone; the peers leave and join `wg show` by the scheduler's own timer, in one
// change. Then a boundary passes while the daemon is down: the start puts it right.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';

const t = suite('access schedules open and close peers in the kernel on a real daemon');

const ZONE = 'Europe/Berlin';
const ALL_WEEK = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
let router: Netns;
let daemon: NsDaemon;
let ifname = '';

/** "HH:MM" of an instant on the zone's wall clock. */
const hhmm = (ms: number): string => new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(ms);
const window = (from: number, to: number) => ({ timezone: ZONE, windows: [{ days: ALL_WEEK, from: hhmm(from), to: hhmm(to) }] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const inKernel = (key: string): boolean => daemon.exec('wg', ['show', ifname, 'peers']).includes(key);
const peer = async (id: number) => (await daemon.api('GET', `/api/peers/${id}`)).json;

if (canRunAsRoot('access schedules on a real daemon')) {
  let sid = 0;
  t.before(async () => {
    router = new Netns('sched');
    daemon = await startNsDaemon(router);
    const server = await daemon.api('POST', '/api/servers', { name: 'timed', endpoint: '192.0.2.1:51820', mode: 'forward', address: '10.79.0.1/24' });
    assert.is(server.status, 201, server.text);
    sid = server.json.id;
    ifname = server.json.interface;
  });
  t.after(async () => {
    await daemon?.stop();
    router?.destroy();
  });

  t('at the next minute one peer leaves the interface and another joins it, in one change by the scheduler', async () => {
    // Far enough from a minute's end that the set-up is done before the boundary.
    if (60_000 - (Date.now() % 60_000) < 8_000) await sleep(60_000 - (Date.now() % 60_000) + 500);
    const now = Date.now();
    const m1 = now - (now % 60_000) + 60_000;
    const leaving = await daemon.api('POST', `/api/servers/${sid}/peers`, { name: 'leaving', schedule: window(now - 5 * 60_000, m1) });
    const joining = await daemon.api('POST', `/api/servers/${sid}/peers`, { name: 'joining', schedule: window(m1, m1 + 10 * 60_000) });
    assert.is(leaving.status, 201, leaving.text);
    assert.is(joining.status, 201, joining.text);
    assert.is(leaving.json.enabled, true);
    assert.equal(joining.json.disabledReasons, ['schedule']);
    assert.ok(inKernel(leaving.json.publicKey), 'open now: on the interface');
    assert.not.ok(inKernel(joining.json.publicKey), 'closed now: not on the interface');
    await waitFor('the boundary applied', async () => ((await peer(joining.json.id)).enabled ? true : undefined), 90_000);
    assert.ok(Date.now() >= m1, 'not before the boundary');
    assert.ok(Date.now() < m1 + 60_000, 'within a minute of the window opening');
    assert.ok(inKernel(joining.json.publicKey), 'the opened peer is on the interface');
    assert.not.ok(inKernel(leaving.json.publicKey), 'the closed peer is off it');
    assert.equal((await peer(leaving.json.id)).disabledReasons, ['schedule']);
    const audit = (await daemon.api('GET', '/api/audit?action=peer.schedule')).json;
    const entries = (audit.entries as Array<{ action: string; actor: { kind: string; name: string } | string; summary: { closed: number; opened: number } }>).filter((e) => e.action === 'peer.schedule');
    assert.is(entries.length, 1, JSON.stringify(audit.entries).slice(0, 500));
    assert.equal([entries[0].summary.closed, entries[0].summary.opened], [1, 1]);
  });

  t('a boundary that passes while the daemon is down is applied when it starts', async () => {
    if (60_000 - (Date.now() % 60_000) < 8_000) await sleep(60_000 - (Date.now() % 60_000) + 500);
    const now = Date.now();
    const m1 = now - (now % 60_000) + 60_000;
    const p = await daemon.api('POST', `/api/servers/${sid}/peers`, { name: 'overnight', schedule: window(now - 5 * 60_000, m1) });
    assert.is(p.json.enabled, true);
    assert.ok(inKernel(p.json.publicKey));
    await daemon.stop();
    await sleep(Math.max(0, m1 - Date.now()) + 1_000);
    daemon = await startNsDaemon(router, { dataDir: daemon.dataDir });
    const shown = await waitFor('the closed schedule applied at start', async () => {
      const q = await peer(p.json.id);
      return q.enabled === false ? q : undefined;
    }, 30_000);
    assert.equal(shown.disabledReasons, ['schedule']);
    assert.not.ok(inKernel(p.json.publicKey));
  });
}

t.run();
