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

/** Reads the counters of every server's interface; a server whose read fails is left out. */
export function readCounters(app: App): Map<number, Map<string, Counters>> {
  const out = new Map<number, Map<string, Counters>>();
  for (const server of app.store.servers.list()) {
    try {
      out.set(server.id, app.kernel.peerCounters(server));
    } catch (err) {
      app.log.warn('reading peer counters failed; usage of this server waits for the next cycle', {
        serverID: server.id, error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return out;
}

/** Adds this cycle's deltas, all peers in one transaction. */
export function recordUsage(app: App, counters: ReadonlyMap<number, ReadonlyMap<string, Counters>>): UsagePlan {
  const { store } = app;
  const seenAt = app.now().toISOString();
  try {
    return store.tx(() => {
      const plan = planUsageCycle(store.usage.cyclePeers(), counters);
      store.usage.addUsage(plan.increments);
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

/** One whole cycle as the scheduler runs it; the traffic goes into the history too. */
export function runUsageCycle(app: App, counters?: Map<number, Map<string, Counters>>): UsageCycle {
  const started = process.hrtime.bigint();
  const plan = recordUsage(app, counters ?? readCounters(app));
  historyOf(app).record(plan.traffic, app.now());
  const restricted = restrictOverLimit(app);
  const lifted = liftRestrictions(app);
  metricsOf(app).usageCycle.observe([], Number(process.hrtime.bigint() - started) / 1e9);
  return { plan, restricted, lifted };
}

/** A peer disabled by anyone leaves its interface, and its counters with it: forget them. */
export function forgetBaselineOnDisable(app: App, e: WgcpEvent): void {
  const peer = e.data.peer as { id?: unknown; enabled?: unknown } | undefined;
  if (peer && peer.enabled === false && typeof peer.id === 'number') app.store.usage.forgetBaseline(peer.id);
}
