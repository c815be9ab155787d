// A standby follows its primary: it asks for the changes after the last one it holds (which
// tells the primary it holds that one), stores each answer in one transaction and brings
// its kernel along (ops/ha-follow.ts), and asks again at once. A primary that answers "the
// journal no longer reaches back" sends its snapshot instead; one that says this router
// holds changes it never had (a former primary back) gets them kept aside first.
import fs from 'node:fs';
import type http from 'node:http';
import type { App } from '../app';
import { privateTempFile } from '../backup/snapshot';
import { applyFollowed, catchUpFromSnapshot, setAsideLoneChanges, type TailAnswer } from '../ops/ha-follow';
import { loadServerSalt } from '../device/server-salt';
import { saltTag } from './auth';
import { signedGet, type Answer } from './request';
import type { Pair } from './pair';

/** How long the primary may hold a tail request open. */
const POLL_WAIT_MS = 5_000;
/** The pause after a failed request (partner down, not primary, refused). */
const RETRY_MS = 500;
/** After a snapshot that could not be applied (another device salt, a full disk): it is a large download. */
const SNAPSHOT_RETRY_MS = 30_000;

export class Follower {
  private stopped = false;
  private running: Promise<void> | null = null;
  private current: http.ClientRequest | null = null;
  /** What was last said of the partner, so a partner that stays down is logged once. */
  private lastTrouble = '';
  /** The tag of this router's device API salt (read once: the daemon holds the salt it started with). */
  private salt: string | null = null;
  /** Set while the loop pauses: stop() ends the pause. */
  private wake: (() => void) | null = null;

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
    this.wake?.();
    await this.running;
  }

  private get following(): boolean { return !this.stopped && this.pair.role === 'standby'; }

  private async loop(): Promise<void> {
    while (this.following) {
      try {
        await this.step();
      } catch (err) {
        this.trouble('the standby could not follow its primary', err instanceof Error ? err.message : String(err));
        await this.pause((err as { snapshot?: boolean }).snapshot ? SNAPSHOT_RETRY_MS : RETRY_MS);
      }
    }
    this.pair.followerConnected = false;
  }

  private async step(): Promise<void> {
    const own = this.app.store.ha.state();
    this.salt ??= saltTag(this.key, loadServerSalt(this.app.config.serverSalt, this.app.config.dataDir).salt);
    const line = this.app.store.ha.currentEpoch();
    const r = await this.request(`/ha/tail?epoch=${own.epoch}&node=${line.node}&start=${line.startSeq}&seq=${own.seq}&wait=${POLL_WAIT_MS}&salt=${this.salt}&schema=${this.app.store.ha.schemaVersion()}`, POLL_WAIT_MS + 10_000);
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
      : r.status === 409 && body?.schemaOlder ? `the primary runs a newer wgcp (schema ${body.schema}): upgrade this router`
      : r.status === 409 && body?.saltDiffers ? 'the device API salt (SERVER_SALT) differs from the primary\'s: give both routers the same one'
      : r.status === 409 && body?.notPrimary ? `the partner is ${body.role}, not primary`
        : r.status === 409 && body?.newer ? 'the partner is behind this router\'s epoch' : `the partner answered ${r.status}`;
    this.trouble('the standby waits for a primary', why);
    await this.pause(RETRY_MS);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => { clearTimeout(timer); this.wake = null; resolve(); };
      const timer = setTimeout(done, this.stopped ? 0 : ms);
      this.wake = done;
    });
  }

  private async snapshot(): Promise<void> {
    const r = await this.request('/ha/snapshot', 120_000);
    if (r.status !== 200) throw new Error(`the primary's snapshot answered ${r.status}`);
    const file = privateTempFile(this.app.config.dataDir, 'ha-snapshot');
    fs.writeFileSync(file, r.body);
    try {
      await catchUpFromSnapshot(this.app, file);
    } catch (err) {
      throw Object.assign(err instanceof Error ? err : new Error(String(err)), { snapshot: true });
    }
    this.pair.followerConnected = true;
  }

  private trouble(message: string, why: string): void {
    if (why === this.lastTrouble) return;
    this.lastTrouble = why;
    this.app.log.warn(message, { partner: this.partner.href, reason: why });
  }

  /** A signed GET to the partner (request.ts); a failed one is a partner not connected. */
  private async request(pathAndQuery: string, timeoutMs: number): Promise<Answer> {
    try {
      return await signedGet(this.key, this.partner, pathAndQuery, timeoutMs, (req) => { this.current = req; });
    } catch (err) {
      this.pair.followerConnected = false;
      throw err;
    }
  }
}
