// A standby follows its primary: it asks for the changes after the last one it holds (which
// tells the primary it holds that one), stores each answer in one transaction and brings
// its kernel along (ops/ha-follow.ts), and asks again at once. A primary that answers "the
// journal no longer reaches back" sends its snapshot instead; one that says this router
// holds changes it never had (a former primary back) gets them kept aside first.
import fs from 'node:fs';
import http from 'node:http';
import type { App } from '../app';
import { privateTempFile } from '../backup/snapshot';
import { applyFollowed, catchUpFromSnapshot, setAsideLoneChanges, type TailAnswer } from '../ops/ha-follow';
import { AUTH_HEADER, SIGNATURE_HEADER, answerIsSigned, signRequest } from './auth';
import type { Pair } from './pair';

/** How long the primary may hold a tail request open. */
const POLL_WAIT_MS = 5_000;
/** The pause after a failed request (partner down, not primary, refused). */
const RETRY_MS = 500;

interface Answer { status: number; body: Buffer }

export class Follower {
  private stopped = false;
  private running: Promise<void> | null = null;
  private current: http.ClientRequest | null = null;
  /** What was last said of the partner, so a partner that stays down is logged once. */
  private lastTrouble = '';

  constructor(private readonly app: App, private readonly pair: Pair, private readonly key: Buffer, private readonly partner: URL) {}

  /** Follows while this router is standby; resolves when stop() was called or the role changed. */
  start(): void {
    if (this.running) return;
    this.stopped = false;
    this.running = this.loop().finally(() => { this.running = null; });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.destroy();
    await this.running;
  }

  private get following(): boolean { return !this.stopped && this.pair.role === 'standby'; }

  private async loop(): Promise<void> {
    while (this.following) {
      try {
        await this.step();
      } catch (err) {
        this.trouble('the standby could not follow its primary', err instanceof Error ? err.message : String(err));
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    this.pair.followerConnected = false;
  }

  private async step(): Promise<void> {
    const own = this.app.store.ha.state();
    const r = await this.request(`/ha/tail?epoch=${own.epoch}&seq=${own.seq}&wait=${POLL_WAIT_MS}`, POLL_WAIT_MS + 10_000);
    if (!this.following) return;
    const body = r.status === 200 || r.status === 409 || r.status === 410 ? JSON.parse(r.body.toString('utf8')) : null;
    if (r.status === 200) {
      const answer = body as TailAnswer;
      this.pair.followerConnected = true;
      this.pair.partnerSeq = answer.seq;
      this.pair.partnerEpoch = answer.epoch;
      this.lastTrouble = '';
      if (answer.upTo > own.seq) await applyFollowed(this.app, answer);
      return;
    }
    if (r.status === 410) return this.snapshot();
    if (r.status === 409 && body?.diverged) {
      await setAsideLoneChanges(this.app, Number(body.since));
      return this.snapshot();
    }
    this.pair.followerConnected = false;
    const why = r.status === 401 ? 'the partner refused this router\'s key: WGCP_HA_KEY_FILE differs'
      : r.status === 409 && body?.notPrimary ? `the partner is ${body.role}, not primary`
        : r.status === 409 && body?.newer ? 'the partner is behind this router\'s epoch' : `the partner answered ${r.status}`;
    this.trouble('the standby waits for a primary', why);
    await new Promise((res) => setTimeout(res, RETRY_MS));
  }

  private async snapshot(): Promise<void> {
    const r = await this.request('/ha/snapshot', 120_000);
    if (r.status !== 200) throw new Error(`the primary's snapshot answered ${r.status}`);
    const file = privateTempFile(this.app.config.dataDir, 'ha-snapshot');
    fs.writeFileSync(file, r.body);
    await catchUpFromSnapshot(this.app, file);
    this.pair.followerConnected = true;
  }

  private trouble(message: string, why: string): void {
    if (why === this.lastTrouble) return;
    this.lastTrouble = why;
    this.app.log.warn(message, { partner: this.partner.href, reason: why });
  }

  /** A signed GET to the partner; an answer whose signature is not the partner's is an error. */
  private request(pathAndQuery: string, timeoutMs: number): Promise<Answer> {
    const { header, nonce } = signRequest(this.key, 'GET', pathAndQuery);
    return new Promise((resolve, reject) => {
      const req = http.request(new URL(pathAndQuery, this.partner), { method: 'GET', headers: { [AUTH_HEADER]: header }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          if (res.statusCode === 401) return resolve({ status: 401, body });
          if (!answerIsSigned(this.key, nonce, body, res.headers[SIGNATURE_HEADER] as string | undefined)) return reject(new Error('the answer was not signed with the shared key'));
          resolve({ status: res.statusCode ?? 0, body });
        });
        res.on('error', reject);
      });
      this.current = req;
      req.on('timeout', () => req.destroy(new Error(`the partner did not answer within ${timeoutMs} ms`)));
      req.on('error', (err) => { this.pair.followerConnected = false; reject(err); });
      req.end();
    });
  }
}
