import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { countingKernel } from './helpers/counting-kernel';
import type { WgcpEvent } from '../src/events/bus';
import type { PeerChange } from '../src/kernel/plane';
import type { App } from '../src/app';
import { startAccessSchedules, type AccessScheduler } from '../src/jobs/access-schedules';
import { noticeMessage } from '../src/events/mail';

const t = suite('access schedules through the API, the runner and the scheduler, on a test clock');

const clock = { now: new Date('2026-01-12T07:30:00Z') }; // a Monday
const k = countingKernel();
const batches: PeerChange[][] = [];
k.kernel.applyPeers = async (changes) => { batches.push(changes); };
let d: TestDaemon;
let api: ReturnType<typeof client>;
let sched: AccessScheduler;
const events: WgcpEvent[] = [];
let sid: number;

const officeHours = { timezone: 'UTC', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '08:00', to: '18:00' }] };

t.before(async () => {
  d = await startTestDaemon({ dataDir: tempDir(), options: { kernel: k.kernel, now: () => clock.now, events: { schedule: false } } });
  api = client(d);
  d.daemon.app.events.subscribe((e) => events.push(e));
  sid = (await api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.60.0.1/16' })).json.id;
  sched = await startAccessSchedules(d.daemon.app, { clock: () => clock.now, timer: false });
});
t.after(async () => { await sched.stop(); await d.stop(); });

const peer = async (id: number) => (await api.get(`/api/peers/${id}`)).json;

t('a bad schedule is refused with 400 naming the field inside it, and nothing is changed', async () => {
  const p = (await api.post(`/api/servers/${sid}/peers`, { name: 'bad' })).json;
  const cases: Array<[unknown, string]> = [
    [{ ...officeHours, windows: [{ days: ['mon'], from: '8am', to: '18:00' }] }, 'schedule.windows[0].from'],
    [{ ...officeHours, timezone: 'Europe/Atlantis' }, 'schedule.timezone'],
    [{ ...officeHours, windows: [officeHours.windows[0], { days: ['xyz'], from: '08:00', to: '09:00' }] }, 'schedule.windows[1].days[0]'],
    [{ timezone: 'UTC' }, 'schedule.windows'],
  ];
  for (const [schedule, field] of cases) {
    const r = await api.put(`/api/peers/${p.id}`, { name: 'changed', schedule });
    assert.is(r.status, 400, r.text);
    assert.ok(r.json.error.startsWith(`${field} `), r.json.error);
  }
  const after = await peer(p.id);
  assert.is(after.name, 'bad');
  assert.is(after.schedule, null);
});

t('a schedule closed now takes the peer off in the same change; clearing it brings the peer back', async () => {
  const p = (await api.post(`/api/servers/${sid}/peers`, { name: 'office' })).json;
  const applied = k.applied.length;
  const r = await api.put(`/api/peers/${p.id}`, { schedule: officeHours });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.schedule, officeHours);
  assert.is(r.json.enabled, false);
  assert.equal(r.json.disabledReasons, ['schedule']);
  assert.is(r.json.disabledReason, 'schedule');
  const change = k.applied[applied];
  assert.is(change.before!.enabled, true);
  assert.is(change.after!.enabled, false);
  assert.is(sched.nextAt(), Date.parse('2026-01-12T08:00:00Z'));
  const cleared = await api.put(`/api/peers/${p.id}`, { schedule: null });
  assert.is(cleared.json.enabled, true);
  assert.equal(cleared.json.disabledReasons, []);
  assert.is(sched.size(), 0);
  // Created with a schedule: off from the start, never on the interface.
  const c = await api.post(`/api/servers/${sid}/peers`, { name: 'born-closed', schedule: officeHours });
  assert.is(c.status, 201, c.text);
  assert.is(c.json.enabled, false);
  assert.is(k.applied[k.applied.length - 1].after!.enabled, false);
  assert.is(sched.size(), 1);
  await api.del(`/api/peers/${c.json.id}`);
  assert.is(sched.size(), 0);
});

t('at the boundary the scheduler opens and later closes the peer, with events, mail notice and a job actor', async () => {
  clock.now = new Date('2026-01-12T07:30:00Z');
  // SMTP on (a server that is not there: the notice waits in its outbox, where it is read).
  assert.is((await api.post('/api/settings/smtp', { enabled: true, server: '127.0.0.1', port: 9, fromEmail: 'vpn@example.com' })).status, 200);
  const p = (await api.post(`/api/servers/${sid}/peers`, { name: 'worker', email: 'w@example.com', schedule: officeHours })).json;
  assert.is(p.enabled, false);
  // Before the boundary: the tick looks at the top of the heap and changes nothing.
  const committed = d.daemon.app.runner.committed;
  clock.now = new Date('2026-01-12T07:59:59Z');
  assert.is(await sched.tick(), null);
  assert.is(d.daemon.app.runner.committed, committed);
  clock.now = new Date('2026-01-12T08:00:00Z');
  events.length = 0;
  const opened = await sched.tick();
  assert.equal(opened!.opened, [p.id]);
  assert.is((await peer(p.id)).enabled, true);
  assert.equal(events.map((e) => [e.event, e.data.change]), [['peerUpdated', 'schedule opened']]);
  assert.is(sched.nextAt(), Date.parse('2026-01-12T18:00:00Z'));
  clock.now = new Date('2026-01-12T18:00:00Z');
  events.length = 0;
  const closed = await sched.tick();
  assert.equal(closed!.closed, [p.id]);
  assert.equal((await peer(p.id)).disabledReasons, ['schedule']);
  assert.equal(events.map((e) => [e.event, e.data.change]), [['peerRestricted', 'schedule closed']]);
  assert.is(sched.nextAt(), Date.parse('2026-01-13T08:00:00Z'));
  // The peer's notice is the schedule's, not the data limit's.
  const mails = d.daemon.app.store.db.prepare('SELECT event, envelope FROM mail_outbox').all() as Array<{ event: string; envelope: string }>;
  const notice = mails.map((m) => JSON.parse(m.envelope)).find((e) => e.data.peer.id === p.id);
  assert.ok(notice, 'a notice is waiting for the peer');
  const mail = noticeMessage(notice.event, notice.data.peer, 'w@example.com', notice.data.change);
  assert.match(String(mail.subject), /outside its access schedule/);
  assert.not.match(String(mail.text), /data limit/);
  await api.post('/api/settings/smtp', { enabled: false, server: '127.0.0.1', port: 9, fromEmail: 'vpn@example.com' });
  const audit = (await api.get('/api/audit?action=peer.schedule')).json;
  const rows = Array.isArray(audit) ? audit : audit.entries ?? audit.items ?? [];
  assert.ok(rows.some((row: { actor?: { kind?: string; name?: string }; actorKind?: string; actorName?: string }) => (row.actor?.name ?? row.actorName) === 'access schedule'), JSON.stringify(audit).slice(0, 400));
  await api.del(`/api/peers/${p.id}`);
});

t("an opening schedule lifts only its own reason: an admin's disable stays", async () => {
  clock.now = new Date('2026-01-12T07:00:00Z');
  const p = (await api.post(`/api/servers/${sid}/peers`, { name: 'both', schedule: officeHours })).json;
  const off = await api.put(`/api/peers/${p.id}`, { enabled: false });
  assert.equal(off.json.disabledReasons, ['admin', 'schedule']);
  clock.now = new Date('2026-01-12T08:00:00Z');
  events.length = 0;
  await sched.tick();
  const after = await peer(p.id);
  assert.equal(after.disabledReasons, ['admin']);
  assert.is(after.enabled, false);
  // No kernel change for a peer that stays off, and an update rather than a restriction.
  assert.equal(events.map((e) => e.event), ['peerUpdated']);
  const on = await api.put(`/api/peers/${p.id}`, { enabled: true });
  assert.is(on.json.enabled, true);
  await api.del(`/api/peers/${p.id}`);
});

t('a restart recomputes the state: a boundary passed while the daemon was down is applied at start', async () => {
  clock.now = new Date('2026-01-13T07:00:00Z');
  const p = (await api.post(`/api/servers/${sid}/peers`, { name: 'sleeper', schedule: officeHours })).json;
  assert.is(p.enabled, false);
  await sched.stop();
  clock.now = new Date('2026-01-13T09:30:00Z');
  sched = await startAccessSchedules(d.daemon.app, { clock: () => clock.now, timer: false });
  assert.is((await peer(p.id)).enabled, true);
  assert.is(sched.nextAt(), Date.parse('2026-01-13T18:00:00Z'));
  await api.del(`/api/peers/${p.id}`);
});

t('a batch the kernel refuses changes nothing and is tried again a minute later', async () => {
  clock.now = new Date('2026-01-15T07:00:00Z');
  const p = (await api.post(`/api/servers/${sid}/peers`, { name: 'refused', schedule: officeHours })).json;
  const applyPeers = k.kernel.applyPeers!;
  let refused = 0;
  k.kernel.applyPeers = async () => { refused++; throw new Error('refused by the test'); };
  try {
    clock.now = new Date('2026-01-15T08:00:00Z');
    assert.is(await sched.tick(), null);
    assert.is(refused, 1);
    assert.equal((await peer(p.id)).disabledReasons, ['schedule']);
    assert.is(sched.nextAt(), Date.parse('2026-01-15T08:01:00Z'));
  } finally {
    k.kernel.applyPeers = applyPeers;
  }
  clock.now = new Date('2026-01-15T08:01:00Z');
  const outcome = await sched.tick();
  assert.equal(outcome!.opened, [p.id]);
  assert.is((await peer(p.id)).enabled, true);
  await api.del(`/api/peers/${p.id}`);
});

t('a clock that went back (NTP after a boot without RTC) makes the scheduler read every schedule again', async () => {
  clock.now = new Date('2026-01-16T12:00:00Z'); // Friday, open
  const p = (await api.post(`/api/servers/${sid}/peers`, { name: 'rewound', schedule: officeHours })).json;
  assert.is(p.enabled, true);
  assert.is(await sched.tick(), null);
  // Back to the night before: the kept boundary (18:00 Friday) is wrong for it, the state too.
  clock.now = new Date('2026-01-15T23:00:00Z');
  const outcome = await sched.tick();
  assert.equal(outcome!.closed, [p.id]);
  assert.is(sched.nextAt(), Date.parse('2026-01-16T08:00:00Z'));
  await api.del(`/api/peers/${p.id}`);
});

/** Peers straight into the store in one transaction (the API would take minutes for 10,000). */
function seedScheduled(app: App, serverId: number, count: number, schedule: unknown): void {
  const now = app.now().toISOString();
  app.store.tx(() => {
    for (let i = 0; i < count; i++) {
      const host = i + 1000;
      app.store.peers.insert({
        serverId, name: `sch-${i}`, email: '', ip: `10.60.${host >> 8}.${host & 255}`, ip6: null, publicKey: crypto.randomBytes(32).toString('base64'),
        privateKey: null, presharedKey: crypto.randomBytes(32).toString('base64'), allowAccess: [], allowInternet: false, enabled: false,
        disabledReasons: ['schedule'], dataLimitGB: 0, usageBytes: 0, expiresAt: null, schedule, createdAt: now, updatedAt: now,
      } as Parameters<App['store']['peers']['insert']>[0]);
    }
  });
}

t('10,000 scheduled peers: a boundary minute is one runner change and one kernel batch; a minute without one reads nothing', async () => {
  const app = d.daemon.app;
  clock.now = new Date('2026-01-21T07:00:00Z');
  seedScheduled(app, sid, 10_000, officeHours);
  await sched.rebuild();
  assert.is(sched.size(), 10_000);
  assert.is(sched.nextAt(), Date.parse('2026-01-21T08:00:00Z'));
  // A quiet minute: the tick runs (it answers null) and touches no peer row.
  const peers = app.store.peers;
  let reads = 0;
  const get = peers.get.bind(peers);
  const scheduled = peers.scheduled.bind(peers);
  peers.get = (id: number) => { reads++; return get(id); };
  peers.scheduled = () => { reads++; return scheduled(); };
  try {
    const committed = app.runner.committed;
    clock.now = new Date('2026-01-21T07:59:00Z');
    assert.is(await sched.tick(), null);
    assert.is(reads, 0);
    assert.is(app.runner.committed, committed);
    // The boundary: all 10,000 in one change, one batch, one announce.
    clock.now = new Date('2026-01-21T08:00:00Z');
    batches.length = 0;
    events.length = 0;
    const outcome = await sched.tick();
    assert.is(outcome!.opened.length, 10_000);
    assert.is(app.runner.committed, committed + 1);
    assert.is(batches.length, 1);
    assert.is(batches[0].length, 10_000);
    assert.ok(batches[0].every((c) => !c.before!.enabled && c.after!.enabled));
    assert.is(events.length, 10_000);
    assert.is(peers.counts(sid).enabled >= 10_000, true);
    assert.is(sched.nextAt(), Date.parse('2026-01-21T18:00:00Z'));
    // And the next quiet minute again reads nothing.
    reads = 0;
    clock.now = new Date('2026-01-21T08:01:00Z');
    assert.is(await sched.tick(), null);
    assert.is(reads, 0);
    assert.is(app.runner.committed, committed + 1);
  } finally {
    peers.get = get;
    peers.scheduled = scheduled;
  }
});

t.run();
