// wgcpd stopping while the page holds its event stream open (an upgraded socket the HTTP
// server no longer tracks): a stop closes it itself rather than wait for the client
// (systemd's SIGKILL came after 90 s). Idle keep-alive connections Node's close() ends itself.
import type { ChildProcess } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { tempDir } from './helpers/daemon';
import { spawnDaemon } from './helpers/process';
import fs from 'node:fs';
import path from 'node:path';

const t = suite('wgcpd stopping with clients connected');
const started: ChildProcess[] = [];
// A daemon that hung in a failed test must not outlive the file.
t.after.each(() => { for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); });

/** Resolves with what `p` gave, or with `late` once `ms` passed: a guard so a hang fails the test rather than the file. */
const within = <T, L>(p: Promise<T>, ms: number, late: L): Promise<T | L> =>
  Promise.race([p, new Promise<L>((resolve) => setTimeout(() => resolve(late), ms).unref())]);

t('SIGTERM closes an open event stream with "going away" and then the process exits 0', async () => {
  const dataDir = tempDir();
  const d = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off', WGCP_LOG_LEVEL: 'info' });
  started.push(d.child);
  const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  const ws = new WebSocket(d.url.replace('http:', 'ws:') + '/api/events', { headers: { 'wg-control-key': key } });
  const firstMessage = new Promise<void>((resolve) => ws.once('message', () => resolve()));
  const order: string[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => { order.push('stream closed'); resolve({ code, reason: String(reason) }); }));
  void d.exited.then(() => order.push('process exited'));
  await firstMessage;
  d.child.kill('SIGTERM');
  // Generous guards: without the fix neither happens at all (the client answers pings forever).
  const seen = await within(closed, 15_000, null);
  assert.ok(seen, 'the client never saw its stream close');
  assert.is(seen!.code, 1001, 'closed as "going away", not cut');
  assert.match(seen!.reason, /stopping/);
  assert.is(await within(d.exited, 15_000, 'still running'), 0);
  assert.equal(order, ['stream closed', 'process exited']);
  ws.terminate();
});

t.run();
