// A backup as bytes, for `wgcp backup` (a file) and GET /api/backup (a response): the
// snapshot, encrypted when a passphrase is given; the caller discards the temporary copy.
import fs from 'node:fs';
import type { DB } from '../store/db';
import { checkPassphrase, encryptFile } from './cipher';
import { takeSnapshot } from './snapshot';

export interface BackupStream {
  /** Bytes of the backup file, in order. */
  chunks: AsyncGenerator<Buffer>;
  /** Removes the temporary snapshot: call it when done, whether the chunks were read or not. */
  discard(): void;
  /** The plain database's size (the encrypted file is larger by its header and tag). */
  plainBytes: number;
  encrypted: boolean;
}

export async function createBackup(source: DB, dataDir: string, now: Date, passphrase: string | null): Promise<BackupStream> {
  if (passphrase !== null) checkPassphrase(passphrase);
  const snapshot = await takeSnapshot(source, dataDir, now);
  const plainBytes = fs.statSync(snapshot).size;
  async function* chunks(): AsyncGenerator<Buffer> {
    if (passphrase !== null) yield* encryptFile(snapshot, passphrase);
    else for await (const c of fs.createReadStream(snapshot, { highWaterMark: 64 * 1024 })) yield c as Buffer;
  }
  return { chunks: chunks(), plainBytes, encrypted: passphrase !== null, discard: () => fs.rmSync(snapshot, { force: true }) };
}

/** A file name for a backup taken at `now`: wgcp-backup-20260122T101500Z.db (or .wgcpenc). */
export function backupFileName(now: Date, encrypted: boolean): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `wgcp-backup-${stamp}.${encrypted ? 'wgcpenc' : 'db'}`;
}
