// A staged restore belongs to the `wgcp restore` that staged it, and is applied only while
// that command runs and has asked for it: never later by a daemon that happens to reload
// (an import's SIGHUP days after the command was killed) or start. The owner file beside
// the staged copy names the command's process (pid and start time, so a reused pid is not
// taken for it) and whether it has asked the daemon to apply the copy at its SIGHUP.
import fs from 'node:fs';
import path from 'node:path';
import { DB_FILE } from '../store/db';

export const OWNER_FILE = `${DB_FILE}.restore-owner`;

interface Owner { pid: number; started: string; asked: boolean }

/** The start time of process `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or null when it is gone. */
function startTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // A zombie has ended: it can ask nothing any more.
    return fields[0] === 'Z' ? null : fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Written by the staging process: it owns the staged copy; `asked` once it has signalled the daemon to apply it. */
export function writeRestoreOwner(dataDir: string, asked: boolean): void {
  const owner: Owner = { pid: process.pid, started: startTime(process.pid) ?? '', asked };
  const file = path.join(dataDir, OWNER_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(owner) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function readOwner(dataDir: string): Owner | null {
  try {
    const o = JSON.parse(fs.readFileSync(path.join(dataDir, OWNER_FILE), 'utf8')) as Owner;
    return Number.isInteger(o.pid) && typeof o.started === 'string' ? o : null;
  } catch {
    return null;
  }
}

export type StagedState = 'none' | 'asked' | 'waiting' | 'abandoned';

/**
 * What the staged copy is to a daemon: `asked` (its owner runs and asked for it), `waiting`
 * (its owner runs and has not asked: not the daemon's to apply), `abandoned` (its owner is
 * gone: never to be applied), or `none`.
 */
export function stagedState(dataDir: string, pendingFile: string): StagedState {
  if (!fs.existsSync(path.join(dataDir, pendingFile))) return 'none';
  const owner = readOwner(dataDir);
  if (!owner || !runs(owner)) return 'abandoned';
  return owner.asked ? 'asked' : 'waiting';
}

/**
 * True while the owner runs: its start time matches (a reused pid does not), or, when its
 * /proc entry is hidden from this process (systemd's ProtectProc=invisible hides another
 * user's, a root `wgcp restore` beside the daemon's user), when a signal 0 finds it.
 */
function runs(owner: Owner): boolean {
  const seen = startTime(owner.pid);
  if (seen !== null) return seen === owner.started;
  if (fs.existsSync(`/proc/${owner.pid}`)) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the staged copy and its owner file. */
export function discardStaged(dataDir: string, pendingFile: string): void {
  fs.rmSync(path.join(dataDir, pendingFile), { force: true });
  fs.rmSync(path.join(dataDir, OWNER_FILE), { force: true });
}
