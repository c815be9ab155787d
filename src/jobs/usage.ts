// Usage collection and the data limit: read every interface's counters, add the deltas to
// currentDataUsageBytes in one change, then restrict peers that reached their limit and
// lift restrictions a limit no longer holds (each peer a change of its own with its
// kernel change, so one refusal never blocks the others). All of it through the runner.
import type { App } from '../app';
import { hasReason, withReason, withoutReason } from '../peer-state';
import { changePeer } from '../ops/peers';
import { jobActor } from '../ops/runner';
import { recordUsage as recordUsageChange } from '../ops/usage';
import { pairOf } from '../ha/pair';
import { isOverLimit } from '../peer-state';
import { planUsageCycle, type Counters, type UsagePlan } from './usage-delta';

export interface UsageCycle { plan: UsagePlan; restricted: number[]; lifted: number[] }

export type CountersByServer = Map<number, Map<string, Counters>>;

/** Counters read, and the peers whose baseline was forgotten while they were read. */
export interface CounterRead { counters: CountersByServer; stale: ReadonlySet<number> }

/**
 * Reads the counters of every server's interface, one after another, without holding the
 * event loop; a server whose read fails is left out.
 */
export async function readCounters(app: App): Promise<CounterRead> {
  const out: CountersByServer = new Map();
  const endRead = app.store.usage.beginCounterRead();
  for (const server of app.store.servers.list()) {
    try {
      out.set(server.id, await app.kernel.peerCounters(server));
    } catch (err) {
      app.log.warn('reading peer counters failed; usage of this server waits for the next cycle', {
        serverID: server.id, error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return { counters: out, stale: endRead() };
}

/** Each peer's endpoint by public key, as the counters' dumps showed it. */
function endpointsOf(counters: CountersByServer): Map<string, string> {
  const out = new Map<string, string>();
  for (const byKey of counters.values()) for (const [key, c] of byKey) if (c.endpoint) out.set(key, c.endpoint);
  return out;
}

/** Adds this cycle's deltas, all peers in one change (no kernel step, no event). */
export async function recordUsage(app: App, { counters, stale }: CounterRead): Promise<UsagePlan> {
  const seenAt = app.now().toISOString();
  try {
    // Only a router with a standby partner keeps its peers' endpoints (its partner's wake-up reads them).
    const endpoints = pairOf(app)?.partnerUrl ? endpointsOf(counters) : undefined;
    return await recordUsageChange(app, (store) => planUsageCycle(store.usage.cyclePeers(), counters, stale), seenAt, { actor: JOB }, endpoints);
  } catch (err) {
    app.store.usage.invalidate();
    throw err;
  }
}

const JOB = jobActor('data limit');

async function eachPeer(app: App, ids: number[], what: string, fn: (id: number) => Promise<boolean>): Promise<number[]> {
  const done: number[] = [];
  for (const id of ids) {
    try {
      if (await fn(id)) done.push(id);
    } catch (err) {
      app.log.error(`${what} failed; it is tried again next cycle`, { peerID: id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return done;
}

/** Enabled peers at or over their limit: enabled=false, disabledReason data_limit, off the interface. */
export function restrictOverLimit(app: App): Promise<number[]> {
  return eachPeer(app, app.store.usage.overLimit(), 'restricting a peer over its data limit', async (id) => {
    const changed = await changePeer(app, 'peer.restrict', id, (p) => (p.enabled && isOverLimit(p.usageBytes, p.dataLimitGB)
      ? { ...withReason(p, 'data_limit'), updatedAt: app.now().toISOString() } : null),
    { name: 'peerRestricted' }, { actor: JOB });
    if (!changed) return false;
    app.log.info('peer restricted: data limit reached', { peerID: id, usageBytes: changed.after.usageBytes, dataLimitGB: changed.after.dataLimitGB });
    return true;
  });
}

/** Peers restricted for a limit they no longer reach (limit raised or removed, usage reset): back on. */
export function liftRestrictions(app: App): Promise<number[]> {
  return eachPeer(app, app.store.usage.restrictedForLimit(), 'lifting a data-limit restriction', async (id) => {
    // Only the limit's own reason is lifted: a peer an admin or a suspension holds stays off.
    const changed = await changePeer(app, 'peer.lift-restriction', id, (p) => (hasReason(p, 'data_limit') && !isOverLimit(p.usageBytes, p.dataLimitGB)
      ? { ...withoutReason(p, 'data_limit'), updatedAt: app.now().toISOString() } : null),
    { name: 'peerUpdated', change: 'restriction lifted' }, { actor: JOB });
    return changed !== null;
  });
}

/**
 * One whole cycle as the scheduler runs it: the counters read (the daemon serves requests
 * meanwhile), then in one go the usage stored, the history recorded and the limits applied.
 * The histogram takes the whole cycle, the read included.
 */
export async function collectUsage(app: App): Promise<UsageCycle> {
  const started = process.hrtime.bigint();
  const read = await readCounters(app);
  const cycle = await applyUsage(app, read);
  app.services.metrics.usageCycle.observe([], Number(process.hrtime.bigint() - started) / 1e9);
  // Peers that differed from the dumps just read are put right (issue 24: the reconciler).
  await app.services.reconciler?.afterUsage();
  return cycle;
}

/** The part of a cycle that holds the event loop, from counters already read. */
export async function applyUsage(app: App, read: CounterRead): Promise<UsageCycle> {
  const plan = await recordUsage(app, read);
  app.services.history.record(plan.traffic, app.now());
  const restricted = await restrictOverLimit(app);
  const lifted = await liftRestrictions(app);
  return { plan, restricted, lifted };
}

