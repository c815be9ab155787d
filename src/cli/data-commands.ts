// The commands that take a while (backup, restore, import): asynchronous, each ending in an
// exit code; a refused file or input is exit 2 with its reason, a failure exit 1.
import { BackupRefused } from '../backup/format';
import { UsageError, type Args } from './args';
import { runBackupCommand } from './backup';
import { runImportCommand } from './import';
import { runRestoreCommand } from './restore';
import { visible } from '../ops/value-rules';

export type DataCommand = 'backup' | 'restore' | 'import';

export async function runDataCommand(command: DataCommand, args: Args, dataDir: string, out: (s: string) => void): Promise<number> {
  const note = (s: string) => { process.stderr.write(s); };
  try {
    if (command === 'backup') return await runBackupCommand(args, dataDir, out, note);
    if (command === 'restore') return await runRestoreCommand(args, dataDir, out);
    return await runImportCommand(args, dataDir, out);
  } catch (err) {
    const refused = err instanceof UsageError || err instanceof BackupRefused || isRefusal(err);
    const message = err instanceof Error ? err.message : String(err);
    // A refusal may quote the file (a wg-quick line): shown escaped, so it acts on no terminal.
    note(`wgcp ${command}: ${refused && !(err instanceof UsageError) ? 'refused: ' : ''}${err instanceof UsageError ? message : visible(message)}\n`);
    return refused ? 2 : 1;
  }
}

/** An operation's 4xx (a conflict, a bad field) is the input's fault: refused, like a bad file. */
function isRefusal(err: unknown): boolean {
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
