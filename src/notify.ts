// Readiness and watchdog for systemd's Type=notify, sent through the `systemd-notify`
// command (Node has no datagram unix sockets). Nothing happens unless systemd asked for it
// through NOTIFY_SOCKET / WATCHDOG_USEC, so a plain `npm start` never runs the command.
import type * as ChildProcess from 'node:child_process';
import http from 'node:http';
import type { Logger } from './log';

export interface NotifyEnv {
  socket: string | null;
  /** Milliseconds between WATCHDOG=1 pings (half of WATCHDOG_USEC), null when unasked. */
  watchdogIntervalMs: number | null;
}

/** Reads what systemd asked for. WATCHDOG_PID, when set, must name this process. */
export function readNotifyEnv(env: NodeJS.ProcessEnv, pid: number): NotifyEnv {
  const socket = env.NOTIFY_SOCKET ? env.NOTIFY_SOCKET : null;
  const usec = Number(env.WATCHDOG_USEC);
  const forUs = !env.WATCHDOG_PID || Number(env.WATCHDOG_PID) === pid;
  const watchdogIntervalMs = socket && forUs && Number.isFinite(usec) && usec > 0 ? Math.max(1, Math.floor(usec / 2000)) : null;
  return { socket, watchdogIntervalMs };
}

/** The address to probe for a listener bound to `host` (a wildcard is probed on loopback). */
export function probeHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

function sendNotify(args: string[], log: Logger): Promise<void> {
  return new Promise((resolve) => {
    // node:child_process only under systemd: without NOTIFY_SOCKET nothing here runs.
    const { execFile } = require('node:child_process') as typeof ChildProcess;
    execFile('systemd-notify', args, { timeout: 10_000 }, (err) => {
      if (err) log.warn('systemd-notify failed', { args: args.join(' '), error: err.message });
      resolve();
    });
  });
}

function healthzAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path: '/healthz', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

export interface Notifier { stop(): Promise<void> }

/**
 * Once the API answers its own /healthz, tells systemd READY=1; then pings the watchdog
 * from the event loop (a blocked loop stops the pings and systemd restarts us).
 */
export async function startNotify(listen: { host: string; port: number }, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<Notifier> {
  const wanted = readNotifyEnv(env, process.pid);
  if (wanted.socket === null) return { stop: async () => {} };
  const host = probeHost(listen.host);
  for (let attempt = 0; !(await healthzAnswers(host, listen.port)); attempt++) {
    if (attempt >= 50) throw new Error('the API did not answer /healthz, so readiness was not sent');
    await new Promise((r) => setTimeout(r, 100));
  }
  await sendNotify(['--ready', `--status=wgcpd is listening on ${listen.host}:${listen.port}`], log);
  let timer: NodeJS.Timeout | null = null;
  if (wanted.watchdogIntervalMs !== null) {
    timer = setInterval(() => void sendNotify(['WATCHDOG=1'], log), wanted.watchdogIntervalMs);
    timer.unref();
  }
  return {
    stop: async () => {
      if (timer) clearInterval(timer);
      await sendNotify(['STOPPING=1'], log);
    },
  };
}
