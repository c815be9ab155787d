// A client pinging a host at a fixed interval from a namespace, with the time of each reply,
// so that a test can say whether replies came back after an event and a bench can measure
// the longest gap between two replies.
import type { ChildProcess } from 'node:child_process';
import type { Netns } from './netns';

export class PingLog {
  /** Each reply: its sequence number and when it came (ms since the epoch, ping's own -D stamp). */
  readonly replies: Array<{ seq: number; at: number }> = [];
  private readonly child: ChildProcess;
  private rest = '';

  constructor(ns: Netns, host: string, intervalS: number) {
    this.child = ns.spawn('ping', ['-n', '-D', '-i', String(intervalS), host]);
    this.child.stdout!.on('data', (d: Buffer) => {
      const lines = (this.rest + d.toString()).split('\n');
      this.rest = lines.pop()!;
      for (const line of lines) {
        const m = /^\[(\d+\.\d+)\] \d+ bytes from .* icmp_seq=(\d+)/.exec(line);
        if (m) this.replies.push({ seq: Number(m[2]), at: Math.round(Number(m[1]) * 1000) });
      }
    });
  }

  /** Replies that came after `at` (ms since the epoch). */
  after(at: number): number { return this.replies.filter((r) => r.at > at).length; }

  /** The longest time without a reply between two replies that came after `from` (ms). */
  longestGap(from = 0): number {
    const times = this.replies.filter((r) => r.at >= from).map((r) => r.at);
    let gap = 0;
    for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i] - times[i - 1]);
    return gap;
  }

  stop(): void { if (this.child.exitCode === null) this.child.kill('SIGKILL'); }
}
