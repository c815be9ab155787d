// A full data disk: every change answers 500, and /healthz must say so (`degraded`, with the
// reason) rather than `ok`. The data folder is a small tmpfs the test fills to its last byte.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import { call, tempDir } from './helpers/daemon';
import { spawnDaemon, type DaemonProcess } from './helpers/process';

const t = suiteNeeding('a full data disk shows in /healthz', ['mount', 'umount'], { root: true });

const dataDir = tempDir('wgcp-full-');
const filler = path.join(dataDir, 'filler');
let d: DaemonProcess;
let key: string;
const api = (method: string, p: string, body?: unknown) => call(d.url, method, p, body, { 'wg-control-key': key });
const server = (n: number) => ({ name: `s${n}`, endpoint: `127.0.0.1:${51820 + n}`, mode: 'forward' });

/** Writes zeros until the file system refuses (ENOSPC). */
function fill(): void {
  const fd = fs.openSync(filler, 'a');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    // The last partial block: every byte is taken.
    try { for (;;) fs.writeSync(fd, Buffer.alloc(512)); } catch { /* full */ }
  } finally {
    fs.closeSync(fd);
  }
}

t.before(async () => {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'wgcp-test-full', dataDir]);
  d = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off' });
  key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
});

t.after(async () => {
  d.child.kill('SIGTERM');
  await d.exited;
  execFileSync('umount', ['-l', dataDir]);
});

t('with room to write, /healthz names no storage reason', async () => {
  assert.is((await api('POST', '/api/servers', server(1))).status, 201);
  const h = await call(d.url, 'GET', '/healthz');
  assert.not.ok((h.json.reasons ?? []).some((r: string) => /folder's disk is full|cannot be stored/.test(r)), h.text);
});

t('a full disk: changes answer 500 and /healthz says degraded with both reasons', async () => {
  fill();
  const made = await api('POST', '/api/servers', server(2));
  assert.is(made.status, 500, made.text);
  const h = await call(d.url, 'GET', '/healthz');
  assert.is(h.status, 200);
  assert.is(h.json.status, 'degraded');
  const reasons = (h.json.reasons as string[]).join('\n');
  assert.match(reasons, /the data folder's disk is full: \d+ KiB free/);
  assert.match(reasons, /changes cannot be stored: the last write failed with SQLITE_FULL/);
});

t('space freed: the failure stays shown until a change is stored, then nothing is left', async () => {
  fs.rmSync(filler);
  const h = await call(d.url, 'GET', '/healthz');
  assert.not.match((h.json.reasons as string[]).join('\n'), /folder's disk is full/, 'the free space is read at each /healthz');
  assert.match((h.json.reasons as string[]).join('\n'), /SQLITE_FULL/, 'no change has been stored since');
  assert.is((await api('POST', '/api/servers', server(3))).status, 201);
  const after = await call(d.url, 'GET', '/healthz');
  assert.not.ok((after.json.reasons ?? []).some((r: string) => /folder's disk is full|cannot be stored/.test(r)), after.text);
});

t.run();
