// Incremental batches through one long-lived `nft -i` instead of one `nft -f -` each: a
// one-shot nft that deleted elements waits 10-20 ms in close() for an RCU grace period
// before it can exit; a session keeps its netlink socket and answers in well under a
// millisecond. The kept process, its order and its bound are src/exec/kept-session.ts.
// Each batch is one line (nft makes each line one transaction) followed by a line that
// cannot parse, whose error marks the end of that batch's answer; nothing before it means
// committed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CommandError, TOOL_TIMEOUT_MS } from '../exec/command';
import { KeptSession, type BatchAnswer, type BatchPlace, type KeptTool } from '../exec/kept-session';
import { applyBatch } from './apply';

// Private folders of live sessions (nft -i keeps a history file in HOME), removed at exit.
const homes = new Set<string>();
process.once('exit', () => { for (const h of homes) fs.rmSync(h, { recursive: true, force: true }); });

/**
 * Batches one `nft -i` takes before a fresh one replaces it: nft 1.0.6's interactive mode
 * gets slower with every line it has read (0.37 ms a batch at first, 1.2 ms after 12,000),
 * so a long-lived one would make changes cost more the longer the daemon runs.
 */
export const SESSION_BATCHES = 1000;

/** nft's message without its caret lines, each line cut short (a batch line can be long). */
function brief(text: string): string {
  return text.split('\n').filter((l) => l.trim() !== '' && !/^\s*\^+\s*$/.test(l)).slice(0, 6)
    .map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l)).join('; ');
}

const failed = (message: string): CommandError => new CommandError('nft', ['-i'], `nft failed: ${message}`, 1);

/** The batch's answer: what nft said before the error of its end line, which is the end line itself and a line of carets under it. */
function readAnswer(said: string, { seq }: BatchPlace): BatchAnswer | null {
  const m = new RegExp(`\\nwgcp-batch-end-${seq}\\n *\\^+\\n`).exec(said);
  if (!m) return null;
  const answer = said.slice(0, Math.max(0, said.lastIndexOf('Error:', m.index))).trim();
  return { failure: answer === '' ? null : brief(answer), rest: said.slice(m.index + m[0].length) };
}

export class NftSession {
  private readonly session: KeptSession<string>;
  private home: string | null = null;
  private mode: 'unknown' | 'session' | 'one-shot' = 'unknown';
  /** The environment of the first start: a session started again after a death is the same nft. */
  private env: NodeJS.ProcessEnv | null = null;

  /** `onOneShot(reason)` is told once when this nft has no usable `nft -i` (a build without its CLI). */
  constructor(private readonly timeoutMs = TOOL_TIMEOUT_MS, private readonly onOneShot: (reason: string) => void = () => {}, batchesPerSession = SESSION_BATCHES) {
    const tool: KeptTool<string> = {
      command: 'nft',
      args: ['-i'],
      env: () => this.env ?? { ...process.env, HOME: this.homeDir() },
      renewAfter: { batches: batchesPerSession },
      // An empty line is the probe: the end line alone.
      frame: (line, { seq }) => [...(line ? [line] : []), `wgcp-batch-end-${seq}`],
      read: readAnswer,
      exited: (how, said) => `nft -i exited (${how}): ${brief(said) || 'no message'}`,
      failed,
    };
    this.session = new KeptSession(tool);
  }

  /** Applies a batch of element adds/deletes as one transaction; rejects with nft's message. */
  apply(batch: string): Promise<void> {
    const line = batch.split('\n').map((l) => l.trim()).filter(Boolean).join('; ');
    if (line === '') return Promise.resolve();
    // HOME points at a private folder: interactive nft keeps a history file there.
    this.env ??= { ...process.env, HOME: this.homeDir() };
    return this.session.inTurn(() => this.applyLine(batch, line));
  }

  /** Process id of the running `nft -i`, if one runs (tests stop it to see a bound hold). */
  pid(): number | null { return this.session.pid(); }

  async close(): Promise<void> {
    await this.session.idle();
    // Our end of its stdin closed, nft reads the end of its input and exits.
    this.session.drop(false);
    if (this.home) {
      fs.rmSync(this.home, { recursive: true, force: true });
      homes.delete(this.home);
    }
    this.home = null;
  }

  private async applyLine(batch: string, line: string): Promise<void> {
    if (this.mode === 'unknown') this.mode = await this.probe();
    if (this.mode === 'one-shot') return applyBatch(batch);
    await this.session.send(line, this.timeoutMs);
  }

  private async probe(): Promise<'session' | 'one-shot'> {
    try {
      await this.session.send('', Math.min(this.timeoutMs, 5000));
      return 'session';
    } catch (err) {
      this.session.drop(true);
      this.onOneShot(err instanceof Error ? err.message : String(err));
      return 'one-shot';
    }
  }

  private homeDir(): string {
    if (!this.home) {
      this.home = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-nft-'));
      homes.add(this.home);
    }
    return this.home;
  }
}
