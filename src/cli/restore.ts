// `wgcp restore FILE [--passphrase-file F]`: checks and stages the backup, then applies it
// itself when no wgcpd runs, or has the running wgcpd apply it as one change through its
// socket (kernel, events and page at once, no restart). A backup with another router's
// device salt is applied during a SIGHUP reload instead: the daemon reads the salt at start.
// A refused file changes nothing: exit 2.
import path from 'node:path';
import { PENDING_FILE, applyPendingRestore, forgetRestoreResult, readRestoreResult, stageRestore, stagedSaltDiffers, type RestoreResult } from '../ops/restore';
import { askDaemon } from './daemon-socket';
import { discardStaged, writeRestoreOwner } from '../backup/restore-owner';
import { reloadDaemon, runningDaemon } from '../backup/daemon-reload';
import { kernelOutcome, readKernelReport } from '../backup/daemon-kernel';
import { UsageError, stringOption, type Args } from './args';
import { readPassphraseFile } from './backup';

function describeApplied(r: RestoreResult, out: (s: string) => void): void {
  out(r.before ? `the database before the restore is kept as ${r.before}\n` : 'there was no database before the restore\n');
  if (r.files.length) out(`restored state files: ${r.files.join(', ')}\n`);
}

export async function runRestoreCommand(args: Args, dataDir: string, out: (s: string) => void): Promise<number> {
  const file = args.words[1];
  if (!file || args.words.length > 2) throw new UsageError('usage: wgcp restore FILE [--passphrase-file F]');
  const passphrase = readPassphraseFile(stringOption(args, 'passphrase-file'));
  const checked = await stageRestore(dataDir, file, passphrase);
  const migrated = checked.schemaFrom === checked.schemaTo ? `schema ${checked.schemaTo}` : `schema ${checked.schemaFrom}, migrated to ${checked.schemaTo}`;
  out(`${file} is a wgcp backup${checked.meta.takenAt ? ` taken at ${checked.meta.takenAt}` : ''}${checked.meta.version ? ` by wgcp ${checked.meta.version}` : ''} (${migrated}): ${checked.servers} servers, ${checked.peers} peers\n`);
  const pid = runningDaemon(dataDir);
  if (pid === null) {
    describeApplied((await applyPendingRestore(dataDir, new Date()))!, out);
    out('restored; wgcpd is not running: its next start applies the restored state to the kernel (when its kernel backend is on)\n');
    return 0;
  }
  forgetRestoreResult(dataDir);
  if (!stagedSaltDiffers(dataDir)) {
    const answer = await askDaemon(dataDir, 'POST', '/api/restore');
    if (answer?.status === 200) {
      const r = answer.json.restored as { servers: number; peers: number; stateFiles: string[]; beforeFile: string };
      out(`the database before the restore is kept as ${path.join(dataDir, r.beforeFile)}\n`);
      if (r.stateFiles.length) out(`restored state files: ${r.stateFiles.join(', ')}\n`);
      out(`restored by the running wgcpd (pid ${pid}) as one change, without a restart: ${r.servers} servers, ${r.peers} peers\n`);
      out(`${kernelOutcome(readKernelReport(dataDir), 'the restored state')}\n`);
      return 0;
    }
    if (answer) throw new Error(`wgcpd did not apply the restore: ${answer.json?.error ?? `status ${answer.status}`}; the database is as it was`);
  }
  out(`wgcpd (pid ${pid}) is running: it applies the restore as it starts again (SIGHUP)${stagedSaltDiffers(dataDir) ? ", to take the backup's device salt" : ''}\n`);
  // Asked: the daemon applies the copy at this SIGHUP only while this command runs.
  writeRestoreOwner(dataDir, true);
  const outcome = await reloadDaemon(dataDir, pid);
  const result = readRestoreResult(dataDir);
  if (result?.ok) {
    describeApplied(result, out);
    if (outcome === 'reloaded') {
      out(`restored; wgcpd started again from it: ${kernelOutcome(readKernelReport(dataDir), 'the restored state')}\n`);
      return 0;
    }
    throw new Error(`restored, but wgcpd ${outcome === 'stopped' ? 'stopped while starting again' : 'did not start again within 60 s'}: see its log`);
  }
  discardStaged(dataDir, PENDING_FILE);
  throw new Error(`wgcpd did not apply the restore${result?.error ? `: ${result.error}` : outcome === 'stopped' ? ': it stopped (see its log)' : ''}; the database is as it was`);
}
