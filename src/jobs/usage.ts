// Usage collection and the data limit: read every interface's counters, add the deltas to
// currentDataUsageBytes in one transaction, then restrict peers that reached their limit
// and lift restrictions a limit no longer holds (each peer in its own transaction with
// its kernel change, so one refusal never blocks the others).
import type { App } from '../app';
import { presentPeer } from '../views/present';
import { hasReason, withReason, withoutReason } from '../ops/disable-reasons';
import { changePeer } from '../ops/peers';
import type { WgcpEvent } from '../events/bus';
import { isOverLimit, planUsageCycle, type Counters, type UsagePlan } from './usage-delta';
import { historyOf } from '../history/context';
import { metricsOf } from '../metrics/context';

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

/** Adds this cycle's deltas, all peers in one transaction. */
export function recordUsage(app: App, { counters, stale }: CounterRead): UsagePlan {
  const { store } = app;
  const seenAt = app.now().toISOString();
  try {
    return store.tx(() => {
      const plan = planUsageCycle(store.usage.cyclePeers(), counters, stale);
      store.usage.addUsage(plan.traffic);
      store.usage.setBaselines(plan.baselines, seenAt);
      return plan;
    });
  } catch (err) {
    store.usage.invalidate();
    throw err;
  }
}

function eachPeer(app: App, ids: number[], what: string, fn: (id: number) => boolean): number[] {
  const done: number[] = [];
  for (const id of ids) {
    try {
      if (fn(id)) done.push(id);
    } catch (err) {
      app.log.error(`${what} failed; it is tried again next cycle`, { peerID: id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return done;
}

/** Enabled peers at or over their limit: enabled=false, disabledReason data_limit, off the interface. */
export function restrictOverLimit(app: App): number[] {
  return eachPeer(app, app.store.usage.overLimit(), 'restricting a peer over its data limit', (id) => {
    const changed = changePeer(app, id, (p) => (p.enabled && isOverLimit(p.usageBytes, p.dataLimitGB)
      ? { ...withReason(p, 'data_limit'), updatedAt: app.now().toISOString() } : null));
    if (!changed) return false;
    const server = app.store.servers.get(changed.after.serverId);
    app.log.info('peer restricted: data limit reached', { peerID: id, usageBytes: changed.after.usageBytes, dataLimitGB: changed.after.dataLimitGB });
    app.events.publish('peerRestricted', changed.after.serverId, { mode: server?.mode, peer: presentPeer(changed.after) });
    return true;
  });
}

/** Peers restricted for a limit they no longer reach (limit raised or removed, usage reset): back on. */
export function liftRestrictions(app: App): number[] {
  return eachPeer(app, app.store.usage.restrictedForLimit(), 'lifting a data-limit restriction', (id) => {
    // Only the limit's own reason is lifted: a peer an admin or a suspension holds stays off.
    const changed = changePeer(app, id, (p) => (hasReason(p, 'data_limit') && !isOverLimit(p.usageBytes, p.dataLimitGB)
      ? { ...withoutReason(p, 'data_limit'), updatedAt: app.now().toISOString() } : null));
    if (!changed) return false;
    const server = app.store.servers.get(changed.after.serverId);
    app.events.publish('peerUpdated', changed.after.serverId, { mode: server?.mode, peer: presentPeer(changed.after), change: 'restriction lifted' });
    return true;
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
  const cycle = applyUsage(app, read);
  metricsOf(app).usageCycle.observe([], Number(process.hrtime.bigint() - started) / 1e9);
  return cycle;
}

/** The part of a cycle that holds the event loop, from counters already read. */
export function applyUsage(app: App, read: CounterRead): UsageCycle {
  const plan = recordUsage(app, read);
  historyOf(app).record(plan.traffic, app.now());
  const restricted = restrictOverLimit(app);
  const lifted = liftRestrictions(app);
  return { plan, restricted, lifted };
}

/** A peer disabled by anyone leaves its interface, and its counters with it: forget them. */
export function forgetBaselineOnDisable(app: App, e: WgcpEvent): void {
  const peer = e.data.peer as { id?: unknown; enabled?: unknown } | undefined;
  if (peer && peer.enabled === false && typeof peer.id === 'number') app.store.usage.forgetBaseline(peer.id);
}
