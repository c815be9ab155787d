// The OpenAPI entries of GET /api/backup and POST /api/import, spread into the API's
// document (openapi-doc.ts) so that it keeps describing every route served.
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const str = { type: 'string' };
const common = { 401: error('missing or wrong credentials'), 500: error('service failure') };

const PlannedServer = {
  type: 'object',
  properties: {
    name: str, endpoint: str, mode: { enum: ['forward', 'standalone'] }, interface: { type: ['string', 'null'], description: 'null: wgcp<id>' },
    address: str, address6: { type: ['string', 'null'] }, listenPort: { type: 'integer' }, dns: str, mtu: { type: ['integer', 'null'] },
    publicKey: { ...str, description: 'the server keeps its private key (never shown)' },
  },
};

const PlannedPeer = {
  type: 'object',
  properties: {
    name: str, ip: str, ip6: { type: ['string', 'null'] }, publicKey: str, enabled: { type: 'boolean' },
    expiresAt: { type: ['string', 'null'], format: 'date-time' }, allowInternet: { type: 'boolean' },
    hasPrivateKey: { type: 'boolean', description: 'wg-easy kept the client\'s private key; a wg-quick config never holds one' },
    hasPresharedKey: { type: 'boolean' },
  },
};

const ImportPlan = {
  type: 'object',
  properties: {
    source: { ...str, description: '"wg-quick", "wg-easy v14 (wg0.json)" or "wg-easy v15 (database)"' },
    server: PlannedServer,
    peers: { type: 'array', items: PlannedPeer },
    notCarried: { type: 'array', items: str, description: 'what the import cannot carry over, one sentence each' },
    notes: { type: 'array', items: str, description: 'choices the import made where the source says nothing' },
  },
};

const ImportRequest = {
  type: 'object', required: ['source'],
  properties: {
    source: { enum: ['wg-quick', 'wg-easy'] },
    file: { ...str, description: 'the text of a wg-quick .conf or of wg-easy\'s wg0.json (v14)' },
    fileBase64: { ...str, description: 'wg-easy\'s v15 SQLite database, base64; give file or fileBase64' },
    fileName: { ...str, description: 'names the server when `name` is absent (wg0.conf -> wg0)' },
    name: str, endpoint: { ...str, description: 'host:port clients reach; default: the router\'s host name (said in notes)' },
    mode: { enum: ['forward', 'standalone'], default: 'forward' }, interface: { ...str, description: 'default wgcp<id>' },
    dryRun: { type: 'boolean', description: 'check and answer the plan; create nothing' },
  },
};

export const backupApiPaths = {
  '/api/backup': {
    get: {
      summary: 'A backup of the whole state (the same file `wgcp backup` writes); it holds every private key and secret',
      parameters: [{ name: 'wgcp-backup-passphrase', in: 'header', schema: { ...str, minLength: 8 }, description: 'encrypts the backup (scrypt + AES-256-GCM)' }],
      responses: {
        200: {
          description: 'the SQLite database, or its encrypted form when a passphrase was given',
          content: { 'application/vnd.sqlite3': { schema: { ...str, contentMediaType: 'application/vnd.sqlite3' } }, 'application/octet-stream': { schema: { ...str, contentMediaType: 'application/octet-stream' } } },
        },
        400: error('the passphrase is shorter than 8 characters'), ...common,
      },
    },
  },
  '/api/restore': {
    post: {
      summary: 'Apply the backup `wgcp restore FILE` checked and staged in the data folder, as one change: every row replaced (the audit log kept), the kernel brought to the restored servers, each server\'s serverChanged announced',
      responses: {
        200: {
          description: 'restored; the database before it is kept in the data folder',
          ...json({ type: 'object', required: ['restored'], properties: { restored: { type: 'object', required: ['servers', 'peers', 'stateFiles', 'beforeFile'], properties: {
            servers: { type: 'integer' }, peers: { type: 'integer' }, stateFiles: { type: 'array', items: str }, beforeFile: str,
          } } } }),
        },
        409: error("no restore is staged, or the backup carries another router's device salt (wgcpd must start again)"), ...common,
      },
    },
  },
  '/api/import': {
    post: {
      summary: 'Import a wg-quick config or a wg-easy wg0.json / database as one server with its peers; refused whole on any conflict',
      requestBody: { required: true, ...json(ImportRequest) },
      responses: {
        200: { description: 'dryRun: the plan; nothing was made', ...json({ type: 'object', properties: { dryRun: { const: true }, plan: ImportPlan } }) },
        201: { description: 'imported', ...json({ type: 'object', properties: { dryRun: { const: false }, plan: ImportPlan, server: { $ref: '#/components/schemas/Server' } } }) },
        400: error('unreadable file, or a conflict (subnet, port, interface, key) with what exists; `field` names it'),
        409: error('the interface name is held by a link wgcp did not make'),
        413: error('body larger than 8 MiB'), ...common,
      },
    },
  },
};
