// `wgcp backup [--out FILE] [--passphrase-file F]`: a consistent snapshot of the daemon's
// database (SQLite's online backup, safe while wgcpd writes), written 0600, encrypted with
// scrypt + AES-256-GCM when a passphrase file is given. `--out -` writes to stdout. Without
// --out it goes into the data folder's backups/ (0700), never the working folder: a clone's
// root is where `git add -A` would pick up every private key of the router.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { backupFileName, createBackup } from '../backup/create';
import { BackupRefused } from '../backup/format';
import { stringOption, type Args } from './args';
import { requireDatabase } from './data-dir';

/** The passphrase in `file`: its text without one trailing newline. */
export function readPassphraseFile(file: string | undefined): string | null {
  if (file === undefined) return null;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new BackupRefused(`cannot read the passphrase file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return text.replace(/\r?\n$/, '');
}

/** Opens the live database as it is (no migration: a newer daemon may own it). */
export function openLive(dataDir: string): Database.Database {
  const file = requireDatabase(dataDir);
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

export const BACKUPS_FOLDER = 'backups';

/** `<dataDir>/backups/wgcp-backup-<time>.db|.wgcpenc`, the folder made owner-only if missing. */
function defaultBackupFile(dataDir: string, now: Date, encrypted: boolean): string {
  const dir = path.join(dataDir, BACKUPS_FOLDER);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return path.join(dir, backupFileName(now, encrypted));
}

export async function runBackupCommand(args: Args, dataDir: string, out: (s: string) => void, note: (s: string) => void): Promise<number> {
  const passphrase = readPassphraseFile(stringOption(args, 'passphrase-file'));
  const now = new Date();
  const given = stringOption(args, 'out');
  const db = openLive(dataDir);
  const target = given ?? defaultBackupFile(dataDir, now, passphrase !== null);
  const toStdout = target === '-';
  let backup;
  try {
    backup = await createBackup(db, dataDir, now, passphrase);
  } finally {
    db.close();
  }
  const partial = toStdout ? null : `${path.resolve(target)}.partial-${process.pid}`;
  try {
    const fd = partial === null ? 1 : fs.openSync(partial, 'wx', 0o600);
    let bytes = 0;
    for await (const chunk of backup.chunks) {
      if (partial === null) await new Promise<void>((resolve, reject) => process.stdout.write(chunk, (e) => (e ? reject(e) : resolve())));
      else fs.writeSync(fd, chunk);
      bytes += chunk.length;
    }
    if (partial !== null) {
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.chmodSync(partial, 0o600);
      fs.renameSync(partial, target);
    }
    const say = toStdout ? note : out;
    say(`wrote ${toStdout ? 'the backup to stdout' : path.resolve(target)} (${bytes} bytes, ${backup.encrypted ? 'encrypted with scrypt + AES-256-GCM' : 'not encrypted'})\n`);
    say(`it holds every private key and secret of this router (mode 0600): keep it where only you can read it${backup.encrypted ? '' : ', or give --passphrase-file'}\n`);
    return 0;
  } finally {
    backup.discard();
    if (partial !== null) fs.rmSync(partial, { force: true });
  }
}
