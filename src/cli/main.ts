#!/usr/bin/env node
// wgcp: the admin command. `serve` runs the daemon; the others work on its database
// directly (WAL lets them write beside a running daemon).
import path from 'node:path';
import { DB_FILE } from '../store/db';
import { Store } from '../store/store';
import { VERSION } from '../version';
import { UsageError, parseArgs, stringOption, wantsJson, type Args } from './args';
import { COMMAND_NAMES, commandHelp, globalHelp, nearestCommand, optionNames } from './help';
import { runCredentialCommand } from './credentials';
import { runDataCommand } from './data-commands';
import { chooseDataDir, requireDatabase } from './data-dir';
import { runRegTokenCommand } from './regtokens';
import { runServe } from './serve';
import { runTlsCommand } from './tls';
import { runTopCommand } from './top';
import { runAuditCommand, runPasskeyCommand, runTotpCommand } from './access';
import { runCheckCommand } from './check';
import { runHaCommand } from './ha';

/** The version line, or with --json an object (wgcpd, wgcp and wgcp-agent are released together: one version). */
function printVersion(json: boolean, out: (s: string) => void): number {
  out(json ? `${JSON.stringify({ version: VERSION })}\n` : `wgcp ${VERSION}\n`);
  return 0;
}

/** Refuses an option the command does not take, so that a typo never passes silently. */
function checkOptions(command: string, args: Args): void {
  const known = optionNames(command);
  for (const name of args.options.keys()) {
    if (!known.includes(name)) throw new UsageError(`unknown option --${name} for wgcp ${command}; \`wgcp ${command} --help\` lists its options`);
  }
}

function unknownCommand(word: string): UsageError {
  const near = nearestCommand(word);
  return new UsageError(`unknown command '${word}'${near ? `: did you mean '${near}'?` : ''}\n\`wgcp --help\` lists the commands`);
}

/**
 * Runs one command: its exit code, now or (for the commands that change something or take a
 * while) once it has ended; -1 for `serve`, which runs on.
 */
export function dispatch(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): number | Promise<number> {
  const args = parseArgs(argv);
  try {
    const command = args.words[0];
    const askedHelp = args.options.has('help') || args.words.includes('-h');
    if (command === undefined) {
      if (args.options.has('version')) return printVersion(args.options.has('json'), out);
      if (askedHelp) { out(globalHelp()); return 0; }
      throw new UsageError(`no command given\n${globalHelp()}`);
    }
    if (command === 'help' || command === '-h') {
      const topic = args.words[1];
      if (topic === undefined && args.options.has('help')) { out(commandHelp('help')); return 0; }
      if (topic === undefined || topic === '-h') { out(globalHelp()); return 0; }
      if (!COMMAND_NAMES.includes(topic)) throw unknownCommand(topic);
      out(commandHelp(topic));
      return 0;
    }
    if (!COMMAND_NAMES.includes(command)) throw unknownCommand(command);
    if (askedHelp) { out(commandHelp(command)); return 0; }
    checkOptions(command, args);
    if (command === 'version') return printVersion(wantsJson(args), out);
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
    process.umask(0o077);
    requireDatabase(dataDir);
    // The running daemon compares when it answers (it holds CAP_NET_ADMIN); the store opens only if not.
    if (command === 'check') return runCheckCommand(dataDir, () => Store.open(dataDir), out, wantsJson(args)).catch((err: unknown) => failure(err));
    if (command === 'ha') return runHaCommand(args, dataDir, out, wantsJson(args)).catch((err: unknown) => failure(err));
    const store = Store.open(dataDir);
    if (command === 'passkey') return runPasskeyCommand(args, store, out).then(() => 0, (err: unknown) => failure(err)).finally(() => store.close());
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
