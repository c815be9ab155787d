// Traffic-control commands through one long-lived `tc -force -batch -` instead of one `tc`
// process each (about 19 ms a process on a router, against well under a millisecond a line
// here). Commands go in as lines; `-force` keeps the session after a failed one, and each
// failure is reported on stderr as "Command failed -:N" after tc's own message. A group of
// commands ends with a line that cannot parse: its failure marks the end of the group's
// answer, so every answer is read from the one stream, in order. A session that does not
// answer within the bound is killed and the group fails; the next group starts another.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { CommandError, TOOL_TIMEOUT_MS } from '../kernel/command';

interface Waiter { endLine: number; firstLine: number; resolve(failures: string[]): void; reject(err: Error): void }
interface Session { child: ChildProcessByStdio<Writable, null, Readable>; said: string; lines: number; waiter: Waiter | null; ended: string | null }

/** Lines one session takes before a fresh one replaces it (tc keeps nothing between lines, but a bound costs nothing). */
export const TC_SESSION_LINES = 100_000;

const failed = (message: string): CommandError => new CommandError('tc', ['-batch'], `tc failed: ${message}`, 1);

/** A command line must be one line of plain words: never a newline or a quote a shell would read. */
function checkLine(line: string): string {
  if (!/^[A-Za-z0-9 :._-]+$/.test(line)) throw new Error(`tc: refused command line ${JSON.stringify(line)}`);
  return line;
}

export class TcSession {
  private session: Session | null = null;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly timeoutMs = TOOL_TIMEOUT_MS, private readonly linesPerSession = TC_SESSION_LINES) {}

  /**
   * Runs the commands in order; rejects with tc's messages of those that failed (the others
   * are applied). `fresh`: in a new tc, since a session keeps the interface indexes it has
   * looked up, and a link made again (a new wireguard-go device, a new IFB) has a new one.
   */
  run(commands: string[], fresh = false, timeoutMs = this.timeoutMs): Promise<void> {
    if (commands.length === 0) return Promise.resolve();
    const lines = commands.map(checkLine);
    const next = this.tail.then(() => {
      if (fresh) this.drop(false);
      return this.send(lines, timeoutMs);
    });
    this.tail = next.catch(() => {});
    return next;
  }

  /** Process id of the running tc, if one runs (tests stop it to see the bound hold). */
  pid(): number | null { return this.session?.child.pid ?? null; }

  /** `now`: kills a tc still at work instead of waiting for it. */
  async close(now = false): Promise<void> {
    if (now) this.drop(true);
    await this.tail;
    this.drop(false);
  }

  private async send(lines: string[], timeoutMs: number): Promise<void> {
    const s = (this.session ??= this.start());
    const firstLine = s.lines + 1;
    s.lines += lines.length + 1;
    const endLine = s.lines;
    let timer: NodeJS.Timeout | undefined;
    let failures: string[];
    try {
      failures = await new Promise<string[]>((resolve, reject) => {
        if (s.ended !== null) return reject(failed(`tc exited (${s.ended})`));
        s.waiter = { endLine, firstLine, resolve, reject };
        timer = setTimeout(() => reject(failed(`tc did not answer within ${timeoutMs / 1000} s and was killed`)), timeoutMs);
        s.child.stdin.write(`${lines.join('\n')}\nwgcp-end-of-group\n`);
        this.settle(s);
      });
    } catch (err) {
      this.drop(true);
      throw err;
    } finally {
      clearTimeout(timer);
      s.waiter = null;
    }
    if (s.lines >= this.linesPerSession) this.drop(false);
    if (failures.length) throw failed(failures.join('; '));
  }

  /** Reads the answers up to the group's end line: each failed command's message, with its command. */
  private settle(s: Session): void {
    const w = s.waiter;
    if (!w) return;
    const end = new RegExp(`(?:^|\\n)Command failed -:${w.endLine}\\n`).exec(s.said);
    if (!end) return;
    const text = s.said.slice(0, end.index);
    s.said = s.said.slice(end.index + end[0].length);
    const failures: string[] = [];
    let message: string[] = [];
    for (const line of text.split('\n')) {
      const m = /^Command failed -:(\d+)$/.exec(line);
      if (!m) { if (line.trim()) message.push(line.trim()); continue; }
      if (Number(m[1]) >= w.firstLine) failures.push(`line ${Number(m[1]) - w.firstLine + 1}: ${message.join(' ') || 'no message'}`);
      message = [];
    }
    w.resolve(failures);
  }

  private start(): Session {
    const child = spawn('tc', ['-force', '-batch', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    const s: Session = { child, said: '', lines: 0, waiter: null, ended: null };
    child.stderr.setEncoding('utf8').on('data', (d: string) => { s.said += d; this.settle(s); });
    child.stdin.on('error', () => { /* a dead tc: its exit below says why */ });
    child.on('error', (err: NodeJS.ErrnoException) => this.ended(s, err.code === 'ENOENT' ? 'not found' : err.message));
    child.on('close', (code, signal) => this.ended(s, signal ? `killed by ${signal}` : `exit code ${code}`));
    return s;
  }

  private ended(s: Session, how: string): void {
    s.ended ??= how;
    s.waiter?.reject(failed(`tc exited (${how})`));
    if (this.session === s) this.session = null;
  }

  private drop(kill: boolean): void {
    const s = this.session;
    this.session = null;
    if (!s) return;
    if (kill && s.child.exitCode === null) s.child.kill('SIGKILL');
    s.child.stdin.end();
    if (kill) s.child.stderr.destroy();
  }
}
