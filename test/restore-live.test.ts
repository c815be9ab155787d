// A restore into the running daemon as one change of its runner (POST /api/restore, which
// `wgcp restore` calls through the daemon's socket): the rows, the kernel delta, the events
// and the audit log, and a kernel refusal halfway that leaves everything as it was.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { KernelOff, type ServerChange, type ServerState } from '../src/kernel/plane';
import type { KernelPeer } from '../src/store/peers';
import { stageRestore } from '../src/ops/restore';

const t = suite('restore into the running daemon, as one change');

type Asked = ServerChange | { sync: ServerState };
const applied: Asked[] = [];
let failOn: ((c: ServerChange) => boolean) | null = null;
/** What the kernel holds of each server, as its changes and syncs left it: a sync's undo is the sync back to these rows. */
const held = new Map<number, ServerState>();
const kernel = new KernelOff();
kernel.applyServer = async (c) => {
  if (failOn?.(c)) throw new Error('the kernel refused (test)');
  applied.push(c);
  if (c.after) held.set(c.after.id, { server: c.after, peers: c.peers, forwards: c.forwards }); else held.delete(c.before!.id);
};
kernel.applyPeer = async ({ server, before, after }) => {
  const h = held.get(server.id)!;
  const id = (after ?? before)!.id;
  held.set(server.id, { ...h, peers: [...h.peers.filter((p) => p.id !== id), ...(after ? [after] : [])] });
};
kernel.syncServer = async (serverId, desired, opts) => {
  const was = held.get(serverId)!;
  const peers = new Map(was.peers.map((p) => [p.id, p]));
  const named = opts.peers === 'all' ? new Set([...peers.keys(), ...desired!.peers.map((p) => p.id)]) : new Set(opts.peers);
  for (const id of named) peers.delete(id);
  for (const p of desired!.peers) if (named.has(p.id)) peers.set(p.id, p);
  const now = { server: desired!.server, peers: [...peers.values()], forwards: desired!.forwards };
  applied.push({ sync: now });
  held.set(serverId, now);
  return { server: was.server, peers: was.peers.filter((p) => named.has(p.id)), forwards: was.forwards, ids: [...named] };
};
/** Peer names by id: a sync carries rows as the kernel holds them, without names. */
const names = new Map<number, string>();
const nameOf = (p: KernelPeer) => names.get(p.id) ?? String(p.id);

let d: TestDaemon;
let api: ReturnType<typeof client>;
const w = {} as { same: number; changed: number; deleted: number; file: string; atBackup: string; maxPeerId: number };

const describe = (c: Asked) => ('sync' in c
  ? `sync ${c.sync.server.name} to ${c.sync.peers.map(nameOf).sort().join(',') || '-'}`
  : `${c.before ? 'down' : 'up'} ${(c.before ?? c.after)!.name}${c.after ? ` with ${c.peers.map(nameOf).sort().join(',') || '-'}` : ''}`);

t.before(async () => {
  d = await startTestDaemon({ options: { kernel } });
  api = client(d);
  const server = async (name: string, net: number) => (await api.post('/api/servers', { name, endpoint: `vpn.example.com:${51700 + net}`, mode: 'standalone', address: `10.${net}.0.1/24`, listenPort: 51700 + net })).json.id as number;
  w.same = await server('same', 131);
  w.changed = await server('changed', 132);
  w.deleted = await server('deleted-since', 133);
  for (const [s, n] of [[w.same, 'a'], [w.changed, 'b'], [w.changed, 'c'], [w.deleted, 'd']] as const) {
    const r = await api.post(`/api/servers/${s}/peers`, { name: n });
    assert.is(r.status, 201);
    names.set(r.json.id, n);
  }
  const backup = await api.get('/api/backup');
  assert.is(backup.status, 200);
  w.file = path.join(tempDir('wgcp-rl-'), 'router.db');
  fs.writeFileSync(w.file, backup.bytes);
  w.atBackup = (await api.get('/api/servers')).text;
  // What happens after the backup, and is undone by the restore.
  const e = (await api.post(`/api/servers/${w.changed}/peers`, { name: 'e' })).json;
  names.set(e.id, 'e');
  assert.is((await api.del(`/api/servers/${w.deleted}`)).status, 204);
  await server('made-since', 134);
  w.maxPeerId = e.id;
});
const sockets: WebSocket[] = [];
t.after(async () => {
  for (const ws of sockets) ws.terminate();
  await d.stop();
});

function watchEvents(): { messages: any[]; ready: Promise<void>; ws: WebSocket } {
  const ws = new WebSocket(d.url.replace('http:', 'ws:') + '/api/events', { headers: { 'wg-control-key': d.key } });
  sockets.push(ws);
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  return { ws, messages, ready: new Promise((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); }) };
}

t('with nothing staged, POST /api/restore is 409 and says how to stage one', async () => {
  const r = await api.post('/api/restore', {});
  assert.is(r.status, 409);
  assert.is(r.json.code, 'WGCP_RESTORE_NOT_STAGED');
});

t('a kernel refusal halfway undoes the steps already taken and changes no row', async () => {
  const before = (await api.get('/api/servers')).text;
  await stageRestore(d.dataDir, w.file, null);
  applied.length = 0;
  failOn = (c) => c.after?.name === 'deleted-since';
  const r = await api.post('/api/restore', {});
  failOn = null;
  assert.is(r.status, 500, r.text);
  assert.match(r.json.error, /kernel refused/);
  assert.is((await api.get('/api/servers')).text, before);
  // The steps taken, then their inverses in reverse: the sync goes back to the rows held
  // before, the server taken down comes up whole.
  assert.equal(applied.map(describe), [
    'down made-since', 'sync changed to b,c',
    'sync changed to b,c,e', 'up made-since with -',
  ]);
  assert.not.ok(fs.existsSync(path.join(d.dataDir, 'wgcp.db.restore-pending')), 'the staged copy is dropped');
  assert.not.ok(fs.readdirSync(d.dataDir).some((f) => f.includes('before-restore')), 'no kept copy of a restore that did not happen');
});

t('a staged backup restores as one change: the answers are the backup\'s, and the kernel is asked only for what differs', async () => {
  const events = watchEvents();
  await events.ready;
  await stageRestore(d.dataDir, w.file, null);
  applied.length = 0;
  const r = await api.post('/api/restore', {});
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.restored.servers, 3);
  assert.equal(r.json.restored.peers, 4);
  assert.match(r.json.restored.beforeFile, /^wgcp\.db\.before-restore-/);
  assert.is((await api.get('/api/servers')).text, w.atBackup);
  // The server both hold is synced (a changed peer never takes it down); the others go and come.
  assert.equal(applied.map(describe).sort(), ['down made-since', 'sync changed to b,c', 'up deleted-since with d']);
  const changes = () => events.messages.filter((m) => m.event === 'serverChanged').map((m) => `${m.data.change} ${m.data.server.name}`).sort();
  for (let i = 0; changes().length < 3 && i < 200; i++) await new Promise((res) => setTimeout(res, 10));
  assert.equal(changes(), ['created deleted-since', 'deleted made-since', 'updated changed']);
});

t('the audit log outlives the restore and gains one row for it', async () => {
  const rows = (await api.get('/api/audit?limit=200')).json.entries as { action: string; actor: { kind: string } }[];
  assert.ok(rows.some((e) => e.action === 'server.delete'), 'the delete made after the backup is still on record');
  const restores = rows.filter((e) => e.action === 'backup.restore');
  assert.is(restores.length, 1, 'the refused restore left no row');
  assert.is(restores[0].actor.kind, 'apikey');
});

t('ids given out before the restore are not given again', async () => {
  const s = JSON.parse(w.atBackup).find((x: { name: string }) => x.name === 'changed');
  const p = (await api.post(`/api/servers/${s.id}/peers`, { name: 'after-restore' })).json;
  assert.ok(p.id > w.maxPeerId, `${p.id} > ${w.maxPeerId}`);
});

t.run();
