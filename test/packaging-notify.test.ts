// Type=notify for real: the built daemon runs with NOTIFY_SOCKET pointing at a datagram
// socket that a python3 listener holds (as systemd would), and the real systemd-notify
// command delivers READY=1, the watchdog pings and STOPPING=1.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import { canRun } from './helpers/root';
import * as assert from 'uvu/assert';
import { readNotifyEnv, probeHost } from '../src/notify';
import { tempDir } from './helpers/daemon';

// Receives notify datagrams, closes the barrier fds that systemd-notify waits on, and
// prints each message as one JSON line: [milliseconds on a monotonic clock at receipt, message].
const LISTENER = `
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print(json.dumps([time.monotonic() * 1000, "LISTENING"]), flush=True)
while True:
    msg, fds, _, _ = socket.recv_fds(s, 65536, 16)
    for fd in fds:
        os.close(fd)
    print(json.dumps([time.monotonic() * 1000, msg.decode()]), flush=True)
`;

const DAEMON = path.join(__dirname, '..', 'src', 'main.js');

/** `at`: when the listener received each message (monotonic milliseconds), beside `messages`. */
interface Listener { proc: ChildProcess; messages: string[]; at: number[]; waitFor(pred: (m: string) => boolean, ms?: number): Promise<string> }

function startListener(socketPath: string): Promise<Listener> {
  const proc = spawn('python3', ['-c', LISTENER, socketPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  const messages: string[] = [];
  const at: number[] = [];
  let buf = '';
  const waiters: Array<() => void> = [];
  proc.stdout!.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const [receivedAt, message] = JSON.parse(buf.slice(0, nl)) as [number, string];
      messages.push(message);
      at.push(receivedAt);
      buf = buf.slice(nl + 1);
    }
    waiters.splice(0).forEach((w) => w());
  });
  const waitFor = (pred: (m: string) => boolean, ms = 10_000) => new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching notify message; got ${JSON.stringify(messages)}`)), ms);
    const check = () => {
      const hit = messages.find(pred);
      if (hit !== undefined) { clearTimeout(timer); resolve(hit); } else waiters.push(check);
    };
    check();
  });
  const listener = { proc, messages, at, waitFor };
  return waitFor((m) => m === 'LISTENING').then(() => listener);
}

function exitOf(proc: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
}

const t = suite('packaging: systemd readiness and watchdog');

t('reads nothing when systemd did not ask', () => {
  assert.equal(readNotifyEnv({}, 10), { socket: null, watchdogIntervalMs: null });
  assert.equal(readNotifyEnv({ WATCHDOG_USEC: '30000000' }, 10), { socket: null, watchdogIntervalMs: null });
});

t('pings the watchdog at half of WATCHDOG_USEC, only for the process it names', () => {
  assert.equal(readNotifyEnv({ NOTIFY_SOCKET: '/run/x', WATCHDOG_USEC: '30000000' }, 10).watchdogIntervalMs, 15_000);
  assert.equal(readNotifyEnv({ NOTIFY_SOCKET: '/run/x', WATCHDOG_USEC: '30000000', WATCHDOG_PID: '10' }, 10).watchdogIntervalMs, 15_000);
  assert.equal(readNotifyEnv({ NOTIFY_SOCKET: '/run/x', WATCHDOG_USEC: '30000000', WATCHDOG_PID: '11' }, 10).watchdogIntervalMs, null);
  assert.equal(readNotifyEnv({ NOTIFY_SOCKET: '/run/x', WATCHDOG_USEC: 'x' }, 10).watchdogIntervalMs, null);
});

t('probes a wildcard listener on loopback', () => {
  assert.is(probeHost('0.0.0.0'), '127.0.0.1');
  assert.is(probeHost('::'), '::1');
  assert.is(probeHost('192.0.2.1'), '192.0.2.1');
});

t('sends READY=1 once /healthz answers, then WATCHDOG=1 pings, then STOPPING=1 on SIGTERM', async () => {
  if (!canRun('notify socket listener', ['python3'])) return;
  const dir = tempDir('wgcp-notify-');
  const socketPath = path.join(dir, 'notify.sock');
  const listener = await startListener(socketPath);
  const daemon = spawn(process.execPath, [DAEMON], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, WGCP_DATA_DIR: path.join(dir, 'data'), WGCP_LISTEN: '127.0.0.1:0', WGCP_KERNEL: 'off', NOTIFY_SOCKET: socketPath, WATCHDOG_USEC: '400000' },
  });
  try {
    const ready = await listener.waitFor((m) => m.includes('READY=1'));
    const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(ready)?.[1]);
    assert.ok(port > 0, `the status names the port: ${ready}`);
    // Readiness was sent only after the API answered, so it answers now.
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.is(health.status, 200);
    const readyAt = listener.messages.indexOf(ready);
    const pingTimes = () => listener.at.filter((_, i) => i > readyAt && listener.messages[i] === 'WATCHDOG=1');
    // Pings keep coming: wait for three. None comes sooner than half the 200 ms interval
    // (a late one, on a loaded machine, is no fault of the daemon's).
    await listener.waitFor(() => pingTimes().length >= 3);
    const times = pingTimes();
    const gaps = times.slice(1).map((x, i) => x - times[i]);
    assert.ok(gaps.every((g) => g >= 100), `one ping each 200 ms, not a storm: gaps ${gaps.join(', ')} ms`);
    assert.not.ok(listener.messages.slice(0, readyAt).includes('WATCHDOG=1'), 'no ping before readiness');
    const exited = exitOf(daemon);
    daemon.kill('SIGTERM');
    await listener.waitFor((m) => m === 'STOPPING=1');
    assert.is(await exited, 0);
  } finally {
    daemon.kill('SIGKILL');
    listener.proc.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
