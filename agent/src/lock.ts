// One agent per state folder: a pid file naming the running agent and when it started. A
// pid file left by a killed agent names a dead process, another program, or a pid reused
// by a newer process, and is taken over.
import fs from 'node:fs';
import path from 'node:path';

export const PID_FILE = 'agent.pid';

/** A process's start time in clock ticks since boot (field 22 of its stat), or null. */
export function processStartTicks(pid: number): string | null {
  try {
    // Its main thread's stat, the same start time: qemu-user answers a process's own
    // /proc/PID/stat itself with a made-up start time, and an agent may run under it.
    const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function livePid(dir: string): number | null {
  let words: string[];
  try { words = fs.readFileSync(path.join(dir, PID_FILE), 'utf8').trim().split(/\s+/); } catch { return null; }
  const pid = Number(words[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  // A pid is reused: by any program after a reboot, by another agent when many start at
  // once. The start time tells the holder from a newer process with its number.
  if (words[1] !== undefined && processStartTicks(pid) !== words[1]) return null;
  try {
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
  fs.writeFileSync(temp, `${process.pid} ${processStartTicks(process.pid) ?? ''}\n`, { mode: 0o644 });
  fs.renameSync(temp, path.join(dir, PID_FILE));
}

export function release(dir: string): void {
  if (livePid(dir) === process.pid) fs.rmSync(path.join(dir, PID_FILE), { force: true });
}
