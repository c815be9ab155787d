#!/usr/bin/env node
// wgcpd: runs the daemon in the foreground until SIGTERM or SIGINT; SIGHUP starts it again.
// First, before the other modules load: their loading would grow the heap already.
import { startedUp } from './v8-memory';
import { ConfigError, loadConfig } from './config';
import { startDaemon, type Daemon } from './daemon';
import { removePidFile, writePidFile } from './backup/daemon-reload';
import { writeKernelReport } from './backup/daemon-kernel';
import { PENDING_FILE, applyPendingRestore } from './ops/restore';
import { discardStaged, stagedState } from './backup/restore-owner';
import { createLogger, type Logger } from './log';
import { KernelUnavailable } from './kernel/select';
import { startNotify, type Notifier } from './notify';
import { bannerFacts, startBanner } from './start-banner';
import { VERSION } from './version';
import { daemonClock } from './test-clock';

/** A staged restore whose `wgcp restore` is gone is never applied (backup/restore-owner.ts): it is removed, and said so. */
function dropAbandonedRestore(dataDir: string, log: Logger): void {
  if (stagedState(dataDir, PENDING_FILE) !== 'abandoned') return;
  discardStaged(dataDir, PENDING_FILE);
  log.warn('a staged restore was discarded: the wgcp restore that staged it ended before applying it; run wgcp restore again to apply it', { stagedFile: PENDING_FILE });
}

/** The kernel report (backup/daemon-kernel.ts), then the pid file the CLI waits for. */
function announceStart(d: Daemon, dataDir: string): void {
  const { kernel } = d.app;
  writeKernelReport(dataDir, { state: kernel.state, reason: kernel.reason, failed: kernel.failures().map((f) => ({ serverId: f.serverId, interface: f.interface, reason: f.reason })) });
  writePidFile(dataDir);
}

export async function runDaemon(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`wgcpd: bad configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  process.umask(0o077);
  // A person at a terminal reads lines of text and a few plain words on where things are
  // (start-banner.ts); journald and scripts (not a terminal) keep one JSON object a line.
  const atTerminal = process.stdout.isTTY === true;
  const log = createLogger(config.logLevel, undefined, atTerminal ? 'text' : 'json');
  const now = daemonClock(process.env.WGCP_TEST_CLOCK);
  if (now) log.warn('WGCP_TEST_CLOCK is set: the daemon\'s clock is moved by a test file', { file: process.env.WGCP_TEST_CLOCK });
  process.on('unhandledRejection', (err) => log.error('unhandled rejection', { error: String(err) }));
  dropAbandonedRestore(config.dataDir, log);
  let daemon;
  try {
    daemon = await startDaemon(config, { log, now });
  } catch (err) {
    log.error('wgcpd could not start', { error: err instanceof Error ? err.message : String(err) });
    process.exit(err instanceof KernelUnavailable ? 3 : 1);
  }
  let notifier: Notifier;
  try {
    notifier = await startNotify({ host: config.listen.host, port: daemon.port }, log);
  } catch (err) {
    log.error('wgcpd could not report readiness', { error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
  announceStart(daemon, config.dataDir);
  if (atTerminal) {
    const { kernel } = daemon.app;
    process.stdout.write(startBanner(bannerFacts({ version: VERSION, listen: { host: config.listen.host, port: daemon.port }, dataDir: config.dataDir,
      apiKeyFromEnv: config.apiKey !== null, kernel: { state: kernel.state, reason: kernel.reason } })));
  }
  // Started: from here on hot code is optimized as usual (v8-memory.ts says why not before).
  startedUp();
  // SIGHUP (docs/operations.md): stop, apply a restore `wgcp restore` staged and asked for, start again
  // from the database; the start reconciles the kernel to it. Signals queue on `current`.
  let current: Promise<Daemon> = Promise.resolve(daemon);
  const reload = () => {
    log.info('reloading: wgcpd starts again from its database', { signal: 'SIGHUP' });
    // Read as the signal comes: a staged restore is this SIGHUP's only if its `wgcp restore` asked.
    const asked = stagedState(config.dataDir, PENDING_FILE) === 'asked';
    current = current.then(async (d) => {
      await d.close();
      if (!asked) dropAbandonedRestore(config.dataDir, log);
      else await applyPendingRestore(config.dataDir, new Date()).then(
        (r) => { if (r) log.warn('restored a backup; the database before it is kept', { beforeFile: r.before, stateFiles: r.files }); },
        (err) => log.error('the staged restore failed: the database is as it was', { error: err instanceof Error ? err.message : String(err) }));
      const next = await startDaemon(config, { log, now });
      announceStart(next, config.dataDir);
      return next;
    });
    current.catch((err) => {
      log.error('wgcpd could not start again after SIGHUP', { error: err instanceof Error ? err.message : String(err) });
      removePidFile(config.dataDir);
      process.exit(1);
    });
  };
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    notifier.stop().then(() => current).then((d) => d.close()).then(() => { removePidFile(config.dataDir); process.exit(0); }, (err) => {
      log.error('stop failed', { error: String(err) });
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => { if (!stopping) reload(); });
}

if (require.main === module) void runDaemon();
