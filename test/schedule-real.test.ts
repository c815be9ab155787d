// Access schedules on a real wgcpd in a router namespace (WGCP_KERNEL=on, wireguard-go): a
// window that closes and one that opens at the next minute, set relative to now in the
// daemon's zone; the peers leave and join `wg show` by the scheduler's own timer, in one
// change. 600 more peers, seeded, cross the same boundary: one change, `wg set` calls of 250
// peers each with their preshared keys. Then a boundary passes while the daemon is down: the
// start puts it right.
import crypto from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { Store } from '../src/store/store';
import { parseSchedule } from '../src/schedule/rules';

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
/** Public key -> preshared key of every peer on the interface. */
const dump = (): Map<string, string> => new Map(daemon.exec('wg', ['show', ifname, 'dump']).trim().split('\n').slice(1).map((l) => l.split('\t')).map((f) => [f[0], f[1]]));
const SEEDED = 300;
/** The boundary every test-1 peer crosses, and the seeded peers' keys. */
let m1 = 0;
const seeded = { leaving: [] as Array<{ pub: string; psk: string }>, joining: [] as Array<{ pub: string; psk: string }> };
const peer = async (id: number) => (await daemon.api('GET', `/api/peers/${id}`)).json;

if (canRunAsRoot('access schedules on a real daemon')) {
  let sid = 0;
  t.before(async () => {
    router = new Netns('sched');
    daemon = await startNsDaemon(router);
    const server = await daemon.api('POST', '/api/servers', { name: 'timed', endpoint: '192.0.2.1:51820', mode: 'forward', address: '10.79.0.1/22' });
    assert.is(server.status, 201, server.text);
    sid = server.json.id;
    ifname = server.json.interface;
    // The boundary: a minute start at least 25 s ahead (a restart and the set-up come first).
    m1 = Date.now() - (Date.now() % 60_000) + 60_000;
    if (m1 - Date.now() < 25_000) m1 += 60_000;
    const now = Date.now();
    await daemon.stop();
    const store = Store.open(daemon.dataDir);
    const at = new Date().toISOString();
    const key = () => crypto.randomBytes(32).toString('base64');
    store.tx(() => {
      for (let i = 0; i < 2 * SEEDED; i++) {
        const joining = i % 2 === 1;
        const k = { pub: key(), psk: key() };
        (joining ? seeded.joining : seeded.leaving).push(k);
        const host = 10 + i;
        store.peers.insert({
          serverId: sid, name: `seeded-${i}`, email: '', ip: `10.79.${host >> 8}.${host & 255}`, ip6: null, publicKey: k.pub, privateKey: null,
          presharedKey: k.psk, allowAccess: [], allowInternet: i % 3 === 0, enabled: !joining, disabledReasons: joining ? ['schedule'] : [],
          dataLimitGB: 0, usageBytes: 0, expiresAt: null, createdAt: at, updatedAt: at,
          schedule: parseSchedule(joining ? window(m1, m1 + 10 * 60_000) : window(now - 5 * 60_000, m1)),
        });
      }
    });
    store.close();
    daemon = await startNsDaemon(router, { dataDir: daemon.dataDir });
  });
  t.after(async () => {
    await daemon?.stop();
    router?.destroy();
  });

  t('at the next minute 301 peers leave the interface and 301 join it, in one change by the scheduler', async () => {
    const now = Date.now();
    assert.ok(m1 - now > 5_000, 'the set-up was done well before the boundary');
    const before = dump();
    assert.ok(seeded.leaving.every((k) => before.get(k.pub) === k.psk), 'the seeded open peers are on the interface');
    assert.ok(seeded.joining.every((k) => !before.has(k.pub)), 'the seeded closed peers are not');
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
    assert.equal([entries[0].summary.closed, entries[0].summary.opened], [SEEDED + 1, SEEDED + 1]);
    // Every joining peer is on with its own preshared key (through the batch's files), every leaving one gone.
    const after = dump();
    assert.ok(seeded.joining.every((k) => after.get(k.pub) === k.psk), 'the opened peers carry their preshared keys');
    assert.ok(seeded.leaving.every((k) => !after.has(k.pub)), 'the closed peers are gone');
    assert.is(after.size, SEEDED + 1);
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
