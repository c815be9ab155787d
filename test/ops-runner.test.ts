// The change runner: every change is planned, applied to the kernel and committed with its
// events, one at a time, and a failure between any two steps leaves the database, the
// kernel and the outbox as they were. Here against a real daemon and a real SQLite file,
// with a kernel seam the test holds and breaks; the real kernel's side (a stopped nft or
// wireguard-go, a daemon killed after it answered) is ops-runner-real.test.ts.
import Database from 'better-sqlite3';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KernelOff, type ForwardChange, type PeerChange, type ServerChange } from '../src/kernel/plane';
import { inverseOf } from '../src/ops/runner';
import { DB_FILE } from '../src/store/db';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { Receiver, eventually } from './helpers/receiver';

const t = suite('change runner: one way for every change');

type Applied = { kind: 'server' | 'peer' | 'forward'; before: unknown; after: unknown };

/** A kernel seam that records what it is asked, can hold an apply until released, and can refuse one. */
class HeldKernel extends KernelOff {
  applied: Applied[] = [];
  refuseNext: string | null = null;
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  /** Resolves when an apply is waiting at the gate. */
  waiting: Promise<void> = Promise.resolve();
  private arrived: (() => void) | null = null;

  hold(): void {
    this.gate = new Promise((resolve) => { this.open = resolve; });
    this.waiting = new Promise((resolve) => { this.arrived = resolve; });
  }

  release(): void { this.open?.(); this.gate = null; }

  private async step(kind: Applied['kind'], before: unknown, after: unknown): Promise<void> {
    if (this.gate) { this.arrived?.(); await this.gate; }
    if (this.refuseNext) {
      const why = this.refuseNext;
      this.refuseNext = null;
      throw new Error(why);
    }
    this.applied.push({ kind, before, after });
  }

  override async applyServer(c: ServerChange): Promise<void> { await this.step('server', c.before, c.after); }
  override async applyPeer(c: PeerChange): Promise<void> { await this.step('peer', c.before, c.after); }
  override async applyForward(c: ForwardChange): Promise<void> { await this.step('forward', c.before, c.after); }
}

let d: TestDaemon;
let api: ReturnType<typeof client>;
let k: HeldKernel;
let rx: Receiver;
let serverId: number;

/** Rows of a table read through a connection of its own, as any other reader of the file would. */
function rows(sql: string): unknown[] {
  const db = new Database(path.join(d.dataDir, DB_FILE), { readonly: true });
  try { return db.prepare(sql).all(); } finally { db.close(); }
}

t.before(async () => {
  k = new HeldKernel();
  d = await startTestDaemon({ options: { kernel: k, events: { schedule: false, retryBaseMs: 50 } } });
  api = client(d);
  rx = await Receiver.start();
  serverId = (await api.post('/api/servers', { name: 'runner', endpoint: 'vpn.example.com:51820', mode: 'standalone' })).json.id;
  assert.is((await api.post(`/api/servers/${serverId}/webhooks`, { url: rx.url, subscribedActions: [1, 2, 3] })).status, 201);
});

t.after(async () => {
  await d.stop();
  await rx.close();
});

t('a change refused by its rules touches neither the kernel nor the database nor the outbox', async () => {
  const applied = k.applied.length;
  const peers = rows('SELECT id FROM peers').length;
  const r = await api.post(`/api/servers/${serverId}/peers`, { ip: '192.0.2.9' });
  assert.is(r.status, 400);
  assert.is(k.applied.length, applied, 'no kernel call');
  assert.is(rows('SELECT id FROM peers').length, peers, 'no row');
  assert.equal(rows('SELECT id FROM webhook_outbox'), [], 'no event');
});

t('a change the kernel refuses is stored nowhere and announced to no one, with a 500 that says why', async () => {
  const before = rows('SELECT id FROM peers').length;
  k.refuseNext = 'wg set failed: the test says no';
  const r = await api.post(`/api/servers/${serverId}/peers`, { name: 'refused' });
  assert.is(r.status, 500);
  assert.match(r.json.error, /the test says no/);
  assert.is(rows('SELECT id FROM peers').length, before);
  assert.equal(rows('SELECT id FROM webhook_outbox'), []);
  // The next change works, and its event goes out.
  const ok = await api.post(`/api/servers/${serverId}/peers`, { name: 'accepted' });
  assert.is(ok.status, 201);
  const got = await rx.waitFor(1);
  assert.equal(got.map((g) => [JSON.parse(g.body).event, JSON.parse(g.body).data.peer.name]), [['peerCreated', 'accepted']]);
});

t('a change whose event cannot be written fails whole: the kernel step is undone and nothing is stored', async () => {
  const before = rows('SELECT id FROM peers').length;
  // The outbox refuses rows, as a full disk would: the change's own transaction must fail.
  d.daemon.app.store.db.exec(`CREATE TEMP TRIGGER outbox_full BEFORE INSERT ON webhook_outbox BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
  try {
    const applied = k.applied.length;
    const r = await api.post(`/api/servers/${serverId}/peers`, { name: 'unannounced' });
    assert.is(r.status, 500);
    assert.is(r.json.code, 'WGCP_STORE_FAILED');
    assert.match(r.json.error, /database or disk is full/, 'the cause is quoted');
    const steps = k.applied.slice(applied);
    assert.is(steps.length, 2, 'applied, then undone');
    assert.equal([steps[0].before, (steps[0].after as { name: string }).name], [null, 'unannounced']);
    assert.equal([(steps[1].before as { name: string }).name, steps[1].after], ['unannounced', null]);
    assert.is(rows('SELECT id FROM peers').length, before, 'no peer stored');
  } finally {
    d.daemon.app.store.db.exec('DROP TRIGGER outbox_full');
  }
});

t('the event is written in the change\'s own transaction: the committed change has its outbox row', async () => {
  rx.hold = true;
  const seen = rx.received.length;
  const r = await api.post(`/api/servers/${serverId}/peers`, { name: 'with-row' });
  assert.is(r.status, 201);
  // Held by the receiver, the delivery is still pending: its row is in the file, beside the peer.
  await rx.waitFor(seen + 1);
  const pending = rows('SELECT event, envelope FROM webhook_outbox') as { event: string; envelope: string }[];
  assert.equal(pending.map((p) => [p.event, JSON.parse(p.envelope).data.peer.id]), [['peerCreated', r.json.id]]);
  rx.release();
  await eventually('the row gone once delivered', () => (rows('SELECT id FROM webhook_outbox').length === 0 ? true : undefined));
});

t('changes run one at a time, in the order they came; reads never wait for them', async () => {
  k.hold();
  const first = api.post(`/api/servers/${serverId}/peers`, { name: 'first' });
  await k.waiting;
  const second = api.post(`/api/servers/${serverId}/peers`, { name: 'second' });
  // While the first change's kernel step is held, reads answer, and see neither change.
  const health = await api.get('/healthz');
  assert.is(health.status, 200);
  const listed = (await api.get(`/api/servers/${serverId}/peers`)).json as { name: string }[];
  assert.not.ok(listed.some((p) => p.name === 'first' || p.name === 'second'), 'nothing uncommitted is seen');
  await eventually('the second waits for the first', () => (d.daemon.app.runner.queued() === 2 ? true : undefined));
  k.release();
  const [a, b] = await Promise.all([first, second]);
  assert.equal([a.status, b.status], [201, 201]);
  assert.ok(b.json.id > a.json.id);
  assert.is.not(a.json.ip, b.json.ip, 'the second was planned after the first was committed');
});

t('a delete is undone whole when it cannot be committed: the server comes back with its peers', async () => {
  const sid = (await api.post('/api/servers', { name: 'doomed', endpoint: 'vpn.example.com:51821', mode: 'forward' })).json.id;
  await api.post(`/api/servers/${sid}/peers`, { name: 'p1' });
  d.daemon.app.store.db.exec(`CREATE TEMP TRIGGER no_delete BEFORE DELETE ON servers BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
  try {
    const applied = k.applied.length;
    const r = await api.del(`/api/servers/${sid}`);
    assert.is(r.status, 500);
    const [gone, back] = k.applied.slice(applied);
    assert.equal([gone.kind, (gone.before as { id: number }).id, gone.after], ['server', sid, null]);
    assert.equal([back.kind, back.before, (back.after as { id: number }).id], ['server', null, sid]);
    assert.is((await api.get(`/api/servers/${sid}`)).status, 200);
  } finally {
    d.daemon.app.store.db.exec('DROP TRIGGER no_delete');
  }
});

t('the inverse of a change swaps before and after, forwards included', () => {
  const server = { id: 1 } as never;
  const inv = inverseOf({ peer: { server, before: null, after: { id: 2 } as never, forwards: { before: [], after: [{ id: 3 } as never] } } });
  assert.ok('peer' in inv);
  if ('peer' in inv) {
    assert.equal([inv.peer.before, inv.peer.after], [{ id: 2 }, null]);
    assert.equal(inv.peer.forwards, { before: [{ id: 3 }], after: [] });
  }
});

t('events carry no webhook, key, token or whole device id, whichever change made them', async () => {
  const hookSecret = 'hook-secret-value-123';
  await api.put(`/api/servers/${serverId}`, { name: 'renamed' });
  const h = await api.post(`/api/servers/${serverId}/webhooks`, { url: `${rx.url}?token=url-secret`, secret: hookSecret, customHeaders: { Authorization: 'Bearer header-secret' }, subscribedActions: [8] });
  assert.is(h.status, 201);
  const seen = rx.received.length;
  await api.put(`/api/servers/${serverId}`, { name: 'renamed-again' });
  const got = await rx.waitFor(seen + 1);
  const body = got[got.length - 1].body;
  assert.is(JSON.parse(body).event, 'serverChanged');
  assert.is(JSON.parse(body).data.server.name, 'renamed-again');
  for (const secret of ['url-secret', hookSecret, 'header-secret', 'webhooks', 'privateKey', 'presharedKey']) {
    assert.not.ok(body.includes(secret), `the event carries ${secret}`);
  }
});

t.run();
