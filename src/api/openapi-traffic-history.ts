// The OpenAPI entries of the traffic history's routes and of GET /metrics, spread into the
// API's document (openapi-doc.ts) so that it keeps describing every route served.
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const time = (description: string) => ({ type: 'string', format: 'date-time', description });

const Usage = {
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
};

const usageQuery = [
  { name: 'step', in: 'query', schema: { enum: ['5m', '1h', '1d'], default: '1h' }, description: '5m reaches back 48 hours, 1h 35 days, 1d 400 days' },
  { name: 'from', in: 'query', schema: time('ISO 8601 with a zone; default: as far back as the step reaches') },
  { name: 'to', in: 'query', schema: time('ISO 8601 with a zone, exclusive; default: now (the bucket being filled included)') },
];

const usageOp = (summary: string) => ({
  summary,
  parameters: usageQuery,
  responses: {
    200: { description: 'the series', ...json(Usage) },
    400: error('step, from or to is not valid (`field` names it)'), 401: error('missing or wrong credentials'),
    404: error('not found'), 500: error('service failure'),
  },
});

export const trafficHistoryApiPaths = {
  '/api/peers/{id}/usage': { parameters: [idParam], get: usageOp("A peer's traffic over time, from the traffic history") },
  '/api/servers/{id}/usage': { parameters: [idParam], get: usageOp("A server's traffic over time: its peers' summed (deleted peers' traffic included)") },
  '/metrics': {
    get: {
      summary: 'Prometheus metrics (text format 0.0.4). With the API\'s credentials here; without any on WGCP_METRICS_LISTEN when it is set',
      responses: {
        200: { description: 'the exposition', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
        401: error('missing or wrong credentials'), 500: error('service failure'),
      },
    },
  },
};
