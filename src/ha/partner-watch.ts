// A primary looks at its partner's role every WATCH_MS. Two primaries happen when the two
// routers were cut off from each other and both were told MASTER (VRRP over a WAN that
// failed, the pair's channel on a link of its own): when they meet again, the one whose line
// is earlier (lines.ts: a lower epoch, or the same epoch from a promotion with a lower node)
// yields: it becomes standby, and its follower keeps its lone changes aside and takes the
// other's line, as a former primary back from a lower epoch does.
import type { App } from '../app';
import { laterLine, type Line } from './lines';
import type { Pair } from './pair';
import { signedGet } from './request';

const WATCH_MS = 2_000;

export interface PartnerWatch { stop(): void }

export function watchPartner(app: App, pair: Pair, key: Buffer, partner: URL, yieldTo: (line: Line) => Promise<void>): PartnerWatch {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const look = async (): Promise<void> => {
    if (pair.role !== 'primary') return;
    const r = await signedGet(key, partner, '/ha/role', WATCH_MS).catch(() => null);
    if (!r || r.status !== 200 || stopped) return;
    const theirs = JSON.parse(r.body.toString('utf8')) as Line & { role: string };
    if (!Number.isSafeInteger(theirs.epoch) || typeof theirs.node !== 'string') return;
    pair.partnerEpoch = Math.max(pair.partnerEpoch, theirs.epoch);
    if (theirs.role === 'primary' && pair.role === 'primary' && laterLine(theirs, app.store.ha.currentEpoch())) await yieldTo({ epoch: theirs.epoch, node: theirs.node });
  };
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      look().catch((err: Error) => app.log.error('the look at the partner\'s role failed', { error: err.message })).finally(next);
    }, WATCH_MS);
    timer.unref();
  };
  next();
  return { stop() { stopped = true; if (timer) clearTimeout(timer); } };
}
