// Traffic-control commands through one long-lived `tc -force -batch -` instead of one `tc`
// process each (about 19 ms a process on a router, against well under a millisecond a line
// here). The kept process, its order and its bound are src/exec/kept-session.ts. Commands
// go in as lines; `-force` keeps the session after a failed one, and each failure is
// reported on stderr as "Command failed -:N" after tc's own message. A group of commands
// ends with a line that cannot parse: its failure marks the end of the group's answer.
import { CommandError, TOOL_TIMEOUT_MS } from '../exec/command';
import { KeptSession, type BatchAnswer, type BatchPlace } from '../exec/kept-session';

/** Lines one session takes before a fresh one replaces it (tc keeps nothing between lines, but a bound costs nothing). */
export const TC_SESSION_LINES = 100_000;

const failed = (message: string): CommandError => new CommandError('tc', ['-batch'], `tc failed: ${message}`, 1);

/** A command line must be one line of plain words: never a newline or a quote a shell would read. */
function checkLine(line: string): string {
  if (!/^[A-Za-z0-9 :._-]+$/.test(line)) throw new Error(`tc: refused command line ${JSON.stringify(line)}`);
  return line;
}

/** Reads the answers up to the group's end line: each failed command's message, with its command. */
function readAnswer(said: string, { firstLine, endLine }: BatchPlace): BatchAnswer | null {
  const end = new RegExp(`(?:^|\\n)Command failed -:${endLine}\\n`).exec(said);
  if (!end) return null;
  const failures: string[] = [];
  let message: string[] = [];
  for (const line of said.slice(0, end.index).split('\n')) {
    const m = /^Command failed -:(\d+)$/.exec(line);
    if (!m) { if (line.trim()) message.push(line.trim()); continue; }
    if (Number(m[1]) >= firstLine) failures.push(`line ${Number(m[1]) - firstLine + 1}: ${message.join(' ') || 'no message'}`);
    message = [];
  }
  return { failure: failures.length ? failures.join('; ') : null, rest: said.slice(end.index + end[0].length) };
}

export class TcSession {
  private readonly session: KeptSession<string[]>;

  constructor(private readonly timeoutMs = TOOL_TIMEOUT_MS, linesPerSession = TC_SESSION_LINES) {
    this.session = new KeptSession<string[]>({
      command: 'tc',
      args: ['-force', '-batch', '-'],
      renewAfter: { lines: linesPerSession },
      frame: (lines) => [...lines, 'wgcp-end-of-group'],
      read: readAnswer,
      exited: (how) => `tc exited (${how})`,
      failed,
    });
  }

  /**
   * Runs the commands in order; rejects with tc's messages of those that failed (the others
   * are applied). `fresh`: in a new tc, since a session keeps the interface indexes it has
   * looked up, and a link made again (a new wireguard-go device, a new IFB) has a new one.
   */
  run(commands: string[], fresh = false, timeoutMs = this.timeoutMs): Promise<void> {
    if (commands.length === 0) return Promise.resolve();
    const lines = commands.map(checkLine);
    return this.session.inTurn(() => {
      if (fresh) this.session.drop(false);
      return this.session.send(lines, timeoutMs);
    });
  }

  /** Process id of the running tc, if one runs (tests stop it to see the bound hold). */
  pid(): number | null { return this.session.pid(); }

  /** `now`: kills a tc still at work instead of waiting for it. */
  async close(now = false): Promise<void> {
    if (now) this.session.drop(true);
    await this.session.idle();
    this.session.drop(false);
  }
}
