// The OpenAPI entries of the standby pair's routes (src/api/ha.ts), spread into the API's document.
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const common = { 401: error('missing or wrong credentials'), 500: error('service failure') };

const HaStatus = {
  type: 'object', required: ['role', 'epoch', 'sequence', 'partner'],
  properties: {
    role: { enum: ['primary', 'standby', 'alone'], description: 'alone: no WGCP_HA_PARTNER' },
    epoch: { type: 'integer', description: 'raised by each promotion' },
    sequence: { type: 'integer', description: 'the last committed change this router holds' },
    partner: {
      type: ['object', 'null'], required: ['url', 'connected', 'behind'],
      properties: {
        url: { type: 'string' }, connected: { type: 'boolean', description: 'false on a primary: the pair is degraded (changes are not held by the standby)' },
        behind: { type: 'integer', description: 'changes the standby does not hold yet' },
      },
    },
  },
};

export const haApiPaths = {
  '/api/ha': {
    get: { summary: 'Where this router stands in its standby pair (any role)', responses: { 200: { description: 'the pair', ...json(HaStatus) }, ...common } },
  },
  '/api/ha/notify': {
    post: {
      summary: 'keepalived\'s state for this router (`wgcp ha notify STATE`, on the admin socket only): MASTER promotes it (a new epoch) while it holds WGCP_HA_VIRTUAL_ADDRESS, BACKUP makes it follow, FAULT stops it acting as primary',
      requestBody: json({ type: 'object', required: ['state'], properties: { state: { enum: ['MASTER', 'BACKUP', 'FAULT'] } } }),
      responses: {
        200: { description: 'the pair after the notice', ...json(HaStatus) },
        400: error('state is not MASTER, BACKUP or FAULT'),
        403: error('not on the admin socket'),
        409: error('no partner is configured, or this router does not hold the virtual address'),
        ...common,
      },
    },
  },
};
