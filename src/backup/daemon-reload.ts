// How the CLI tells a running wgcpd that its database changed under it (a restore, an
// import): wgcpd writes its pid to <dataDir>/wgcpd.pid at every (re)start; SIGHUP makes it
// stop, apply a staged restore, and start again from the database, reconciling the kernel.
// A pid is signalled only while that process holds the data folder's database open, so a
// stale file never signals a stranger.
import fs from 'node:fs';
import path from 'node:path';
import { DB_FILE } from '../store/db';

export const PID_FILE = 'wgcpd.pid';

/** The running daemon's socket in the data folder (src/http/admin-socket.ts): the CLI's way in. */
export const ADMIN_SOCKET = 'wgcpd.sock';
export const adminSocketPath = (dataDir: string): string => path.join(dataDir, ADMIN_SOCKET);

/** Written at every start: a new file each time, so a reload is seen as a new inode. */
export function writePidFile(dataDir: string): void {
  const file = path.join(dataDir, PID_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${process.pid}\n`, { mode: 0o644 });
  fs.renameSync(tmp, file);
}

export function removePidFile(dataDir: string): void {
  const file = path.join(dataDir, PID_FILE);
  try {
    if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.rmSync(file, { force: true });
  } catch { /* already gone */ }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when process `pid` has `dbFile` open (read from /proc); null when /proc cannot tell. */
function holdsFile(pid: number, dbFile: string): boolean | null {
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  const want = fs.realpathSync(dbFile);
  return fds.some((fd) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === want;
    } catch {
      return false;
    }
  });
}

/** The pid of the wgcpd that serves `dataDir`, or null when none runs. */
export function runningDaemon(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid || !alive(pid)) return null;
  const dbFile = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(dbFile)) return null;
  return holdsFile(pid, dbFile) === true ? pid : null;
}

function pidFileId(dataDir: string): string | null {
  try {
    const st = fs.statSync(path.join(dataDir, PID_FILE));
    return `${st.ino}:${st.mtimeMs}`;
  } catch {
    return null;
  }
}

export type ReloadOutcome = 'reloaded' | 'stopped' | 'timeout';

/** Sends SIGHUP to `pid` and waits until it has started again (its pid file is rewritten) or has exited. */
export async function reloadDaemon(dataDir: string, pid: number, timeoutMs = 60_000): Promise<ReloadOutcome> {
  const before = pidFileId(dataDir);
  process.kill(pid, 'SIGHUP');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    if (!alive(pid)) return 'stopped';
    const now = pidFileId(dataDir);
    if (now !== null && now !== before) return 'reloaded';
  }
  return 'timeout';
}
