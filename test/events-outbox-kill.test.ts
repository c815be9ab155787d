// Events are written with the change that causes them: a daemon killed with SIGKILL right
// after it answered still delivers that change's webhook once it is started again.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, tempDir } from './helpers/daemon';
import { spawnDaemon, type DaemonProcess } from './helpers/process';
import { Receiver } from './helpers/receiver';

const t = suite('event outbox: a change answered is a change announced');

let rx: Receiver;
let running: DaemonProcess | null = null;

t.before(async () => { rx = await Receiver.start(); });
t.after(async () => {
  running?.child.kill('SIGKILL');
  await rx.close();
});

t('a daemon killed right after it answered 201 delivers the change\'s webhook after its restart', async () => {
  const dataDir = tempDir('wgcp-outbox-kill-');
  const env = { WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off', WGCP_LOG_LEVEL: 'info' };
  running = await spawnDaemon(env);
  const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  const auth = { 'wg-control-key': key };
  const s = await call(running.url, 'POST', '/api/servers', { name: 'edge', endpoint: 'vpn.example.com:51820', mode: 'standalone' }, auth);
  assert.is(s.status, 201);
  assert.is((await call(running.url, 'POST', `/api/servers/${s.json.id}/webhooks`, { url: rx.url, subscribedActions: [1] }, auth)).status, 201);
  // The receiver takes the first attempt and never answers it: the delivery is under way when the daemon dies.
  rx.hold = true;
  const created = await call(running.url, 'POST', `/api/servers/${s.json.id}/peers`, { name: 'survivor' }, auth);
  assert.is(created.status, 201);
  await rx.waitFor(1);
  running.child.kill('SIGKILL');
  await running.exited;
  rx.release(200);
  rx.received.length = 0;
  running = await spawnDaemon(env);
  const [delivery] = await rx.waitFor(1);
  const body = JSON.parse(delivery.body);
  assert.equal([body.event, body.data.peer.id, body.data.peer.name], ['peerCreated', created.json.id, 'survivor']);
  running.child.kill('SIGTERM');
  await running.exited;
  running = null;
});

t.run();
