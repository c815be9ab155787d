// A peer's or a server's traffic over time, from the traffic history:
// {"step", "points": [{"t", "rxBytes", "txBytes"}]}, bytes from the router's side (rx: sent
// by the peer), t the bucket's start, buckets without traffic left out.
import type { App } from '../app';
import type { Route, RouteDoc } from '../http/router';
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

const time = (description: string) => ({ type: 'string', format: 'date-time', description });

/** The answer's schema (the page's UsageSeries is held to it). */
const USAGE = () => ({
  type: 'object',
  required: ['step', 'points'],
  properties: {
    step: { enum: ['5m', '1h', '1d'] },
    points: {
      type: 'array',
      description: 'buckets with traffic, oldest first (buckets without traffic are left out)',
      items: {
        type: 'object',
        required: ['t', 'rxBytes', 'txBytes'],
        properties: {
          t: time('the start of the bucket (UTC)'),
          rxBytes: { type: 'integer', format: 'int64', description: 'bytes the router received from the peer(s)' },
          txBytes: { type: 'integer', format: 'int64', description: 'bytes the router sent to the peer(s)' },
        },
      },
    },
  },
});

const usageDoc = (summary: string): RouteDoc => ({
  summary,
  query: [
    { name: 'step', schema: { enum: ['5m', '1h', '1d'], default: '1h' }, description: '5m reaches back 48 hours, 1h 35 days, 1d 400 days' },
    { name: 'from', schema: time('ISO 8601 with a zone; default: as far back as the step reaches') },
    { name: 'to', schema: time('ISO 8601 with a zone, exclusive; default: now (the bucket being filled included)') },
  ],
  answers: { 200: { description: 'the series', shape: USAGE() } },
  errors: [[400, 'step, from or to is not valid (`field` names it)'], 404],
});

export function trafficHistoryRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/peers/:id/usage', auth: 'control', role: 'viewer', doc: () => usageDoc("A peer's traffic over time, from the traffic history"),
      handler: (ctx) => answer(app, peerFromPath(app, ctx.params.id).id, ctx.query),
    },
    {
      method: 'GET', path: '/api/servers/:id/usage', auth: 'control', role: 'viewer', doc: () => usageDoc("A server's traffic over time: its peers' summed (deleted peers' traffic included)"),
      handler: (ctx) => answer(app, serverSubject(serverFromPath(app, ctx.params.id).id), ctx.query),
    },
  ];
}
