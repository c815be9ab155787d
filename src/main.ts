#!/usr/bin/env node
// wgcpd: runs the daemon in the foreground until SIGTERM or SIGINT.
import { ConfigError, loadConfig } from './config';
import { startDaemon } from './daemon';
import { createLogger } from './log';
import { KernelUnavailable } from './kernel/select';
import { startNotify, type Notifier } from './notify';

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
  const log = createLogger(config.logLevel);
  process.on('unhandledRejection', (err) => log.error('unhandled rejection', { error: String(err) }));
  let daemon;
  try {
    daemon = await startDaemon(config, { log });
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
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    notifier.stop().then(() => daemon.close()).then(() => process.exit(0), (err) => {
      log.error('stop failed', { error: String(err) });
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

if (require.main === module) void runDaemon();
