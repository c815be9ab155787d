// One agent per state folder: a pid file naming the running agent. A pid file left by a
// killed agent names a dead process (or another program) and is taken over.
import fs from 'node:fs';
import path from 'node:path';

export const PID_FILE = 'agent.pid';

function livePid(dir: string): number | null {
  let pid: number;
  try { pid = Number(fs.readFileSync(path.join(dir, PID_FILE), 'utf8').trim()); } catch { return null; }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    // Pid numbers are reused after a reboot: it must still be an agent.
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('wgcp-agent') ? pid : null;
  } catch {
    return null;
  }
}

/** The pid of the agent that runs with this state folder, or null. */
export const runningAgent = (dir: string): number | null => livePid(dir);

/** Claims the folder for this process; throws when another live agent holds it. */
export function claim(dir: string): void {
  const other = livePid(dir);
  if (other !== null && other !== process.pid) throw new Error(`another agent (pid ${other}) runs with state_dir ${dir}`);
  const temp = path.join(dir, `${PID_FILE}.tmp`);
  fs.writeFileSync(temp, `${process.pid}\n`, { mode: 0o644 });
  fs.renameSync(temp, path.join(dir, PID_FILE));
}

export function release(dir: string): void {
  if (livePid(dir) === process.pid) fs.rmSync(path.join(dir, PID_FILE), { force: true });
}
