// A peer's or a server's traffic over time, from the traffic history:
// {"step", "points": [{"t", "rxBytes", "txBytes"}]}, bytes from the router's side (rx: sent
// by the peer), t the bucket's start, buckets without traffic left out.
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { readSeries } from '../history/series';
import { serverSubject } from '../history/table';
import { peerFromPath, serverFromPath } from './lookups';
import { readUsageQuery } from './traffic-history-input';

function answer(app: App, subject: number, query: URLSearchParams) {
  const q = readUsageQuery(query, app.now());
  const history = app.services.history;
  const points = readSeries(history.table, history.heldBuckets(), subject, q.step, q.from, q.to);
  return ok({ step: q.step, points: points.map((p) => ({ t: new Date(p.t * 1000).toISOString(), rxBytes: p.rxBytes, txBytes: p.txBytes })) });
}

export function trafficHistoryRoutes(app: App): Route[] {
  return [
    { method: 'GET', path: '/api/peers/:id/usage', auth: 'control', role: 'viewer', handler: (ctx) => answer(app, peerFromPath(app, ctx.params.id).id, ctx.query) },
    { method: 'GET', path: '/api/servers/:id/usage', auth: 'control', role: 'viewer', handler: (ctx) => answer(app, serverSubject(serverFromPath(app, ctx.params.id).id), ctx.query) },
  ];
}
