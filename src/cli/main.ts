#!/usr/bin/env node
// wgcp: the admin command. `serve` runs the daemon; the others work on its database
// directly (WAL lets them write beside a running daemon).
import path from 'node:path';
import { DB_FILE } from '../store/db';
import { Store } from '../store/store';
import { VERSION } from '../version';
import { UsageError, parseArgs, stringOption } from './args';
import { runCredentialCommand } from './credentials';
import { runDataCommand } from './data-commands';
import { DATA_DIR_RULE, chooseDataDir, requireDatabase } from './data-dir';
import { runRegTokenCommand } from './regtokens';
import { runServe } from './serve';
import { runTlsCommand } from './tls';
import { runTopCommand } from './top';
import { runAuditCommand, runTotpCommand } from './access';
import { runCheckCommand } from './check';

const USAGE = `usage: wgcp [--data-dir DIR] COMMAND
  serve                                   run the daemon in the foreground
  init                                    make the data folder's database if missing (wgcpd makes it too)
  apikey create [--name NAME] [--role R] | list | role ID R | revoke ID   R: admin, operator, viewer
  token  create [--name NAME] [--role R] [--expires-in-days N] | list | role ID R | revoke ID
  totp reset ID                           remove the two-factor sign-in of a key or token (a lost phone)
  audit [--actor K[:ID]] [--target T[:ID]] [--action A] [--since T] [--until T] [--after ID]   JSON lines
  regtoken create --server ID | list [--server ID] | revoke TOKEN   device registration tokens
  top [--limit N] [--json]                the busiest peers of the last hour (traffic history)
  check                                   compare the kernel with the database, repair nothing; exit 1: they differ
  tls init [--out-dir DIR] [--cn NAME] [--san DNS:x,IP:y] [--days N] [--force]   self-signed pair
  backup [--out FILE|-] [--passphrase-file F]   a consistent snapshot, 0600; it holds every secret
  restore FILE [--passphrase-file F]            replaces the state (the old one is kept); exit 2: refused
  import wg-quick|wg-easy FILE [--name NAME] [--endpoint HOST:PORT] [--mode M] [--interface IF] [--dry-run]
  help, --help, -h                        print this
  --version                               print the version
${DATA_DIR_RULE}`;

/**
 * Runs one command: its exit code, now or (for the commands that change something or take a
 * while) once it has ended; -1 for `serve`, which runs on.
 */
export function dispatch(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): number | Promise<number> {
  const args = parseArgs(argv);
  try {
    if (args.options.has('version')) { out(`wgcp ${VERSION}\n`); return 0; }
    const command = args.words[0];
    if (args.options.has('help') || args.words.includes('-h') || command === 'help') { out(`${USAGE}\n`); return 0; }
    const dataDir = chooseDataDir(stringOption(args, 'data-dir'), process.env, process.cwd());
    if (command === 'serve') {
      runServe(dataDir);
      return -1;
    }
    if (command === 'tls') { runTlsCommand(args, dataDir, out); return 0; }
    if (command === 'backup' || command === 'restore' || command === 'import') {
      process.umask(0o077);
      return runDataCommand(command, args, dataDir, out);
    }
    if (command === 'init') {
      process.umask(0o077);
      Store.open(dataDir).close();
      out(`the database is ${path.join(dataDir, DB_FILE)}\n`);
      return 0;
    }
    if (!['apikey', 'token', 'regtoken', 'top', 'totp', 'audit', 'check'].includes(command)) throw new UsageError(USAGE);
    process.umask(0o077);
    requireDatabase(dataDir);
    const store = Store.open(dataDir);
    if (command === 'check') return runCheckCommand(store, out).catch((err: unknown) => failure(err)).finally(() => store.close());
    if (command === 'regtoken' || command === 'apikey' || command === 'token') {
      // Changes: made through the change runner, so they end asynchronously.
      const change = command === 'regtoken' ? runRegTokenCommand(args, store, out) : runCredentialCommand(command, args, store, out);
      return change.then(() => 0, (err: unknown) => failure(err)).finally(() => store.close());
    }
    try {
      if (command === 'top') runTopCommand(args, store, out);
      else if (command === 'totp') runTotpCommand(args, store, out);
      else runAuditCommand(args, store, out);
    } finally {
      store.close();
    }
    return 0;
  } catch (err) {
    return failure(err);
  }
}

/** A usage error says so and exits 2; any other failure exits 1. */
function failure(err: unknown): number {
  if (err instanceof UsageError) {
    process.stderr.write(`wgcp: ${err.message}\n`);
    return 2;
  }
  process.stderr.write(`wgcp: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

/**
 * The packaged wrappers' entry (OpenWrt's drops privileges, then calls this): the exit code
 * now, or -1 while a command still runs, which then sets process.exitCode itself.
 */
export function main(argv: string[], out?: (s: string) => void): number {
  const answer = dispatch(argv, out);
  if (typeof answer === 'number') return answer;
  void answer.then((code) => { if (code >= 0) process.exitCode = code; });
  return -1;
}

/** dispatch() whose answer is always a promise (tests run commands in their own process this way). */
export async function runCommand(argv: string[], out?: (s: string) => void): Promise<number> { return dispatch(argv, out); }

if (require.main === module) {
  void runCommand(process.argv.slice(2)).then((code) => { if (code >= 0) process.exitCode = code; });
}
