// The OpenAPI 3.1 description of the control-plane API, written by hand as the contract
// the clients read; a test holds its list of operations equal to the router's.
import { VERSION } from '../version';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const err = (description: string) => ({ description, ...json(ref('Error')) });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [String(c), err(ERROR_TEXT[c])]));
const ERROR_TEXT: Record<number, string> = {
  400: 'invalid request; `field` names the bad field', 401: 'missing or wrong credentials',
  404: 'not found', 413: 'body larger than 1 MiB', 500: 'service failure',
};

const op = (summary: string, success: Record<string, unknown>, codes: number[], extra: Record<string, unknown> = {}) =>
  ({ summary, ...extra, responses: { ...success, ...errors(401, ...codes, 500) } });
const withId = (o: Record<string, unknown>) => ({ parameters: [idParam], ...o });
const body = (name: string) => ({ requestBody: { required: true, ...json(ref(name)) } });

const str = { type: 'string' };
const int = { type: 'integer', format: 'int64' };
const bool = { type: 'boolean' };
const ts = { type: 'string', format: 'date-time' };

export const openApiDocument = {
  openapi: '3.1.0',
  info: { title: 'wgcp control-plane API', version: '1.0', 'x-wgcp-version': VERSION },
  components: {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'wg-control-key' },
      bearer: { type: 'http', scheme: 'bearer' },
    },
    schemas: {
      Error: { type: 'object', required: ['error'], additionalProperties: str, properties: { error: str, field: str } },
      Server: {
        type: 'object', required: ['name', 'endpoint', 'mode'],
        properties: {
          id: { ...int, readOnly: true }, name: str, endpoint: { ...str, description: 'host:port' },
          mode: { enum: ['forward', 'standalone'] }, publicKey: { ...str, readOnly: true },
          interface: str, address: { ...str, description: 'server tunnel address with prefix, e.g. 10.1.0.1/24' },
          listenPort: { type: 'integer', minimum: 1, maximum: 65535 }, dns: str,
          mtu: { type: ['integer', 'null'], minimum: 1280, maximum: 9000 },
          peers: { type: 'array', items: ref('Peer'), readOnly: true },
          webhooks: { type: 'array', items: ref('Webhook'), readOnly: true },
          createdAt: { ...ts, readOnly: true }, updatedAt: { ...ts, readOnly: true },
        },
      },
      Peer: {
        type: 'object',
        properties: {
          id: { ...int, readOnly: true }, serverID: { ...int, readOnly: true }, name: str, email: str,
          ip: str, publicKey: str, allowAccess: { type: 'array', items: int }, allowInternet: bool, enabled: bool,
          disabledReason: { enum: ['', 'admin', 'data_limit'], readOnly: true },
          dataLimitGB: { ...int, minimum: 0 }, currentDataUsageBytes: { ...int, readOnly: true },
          expiresAt: { type: ['string', 'null'], format: 'date-time' }, hasPrivateKey: { ...bool, readOnly: true },
          createdAt: { ...ts, readOnly: true }, updatedAt: { ...ts, readOnly: true },
        },
      },
      Webhook: {
        type: 'object', required: ['url'],
        properties: {
          id: { ...int, readOnly: true }, serverID: { ...int, readOnly: true }, name: str, url: str,
          isEnabled: bool, isGlobal: bool, verifySSL: bool,
          subscribedActions: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 8 } },
          template: { enum: ['default', 'slack', 'discord', 'custom'] }, defaultPayload: str, customBody: str,
          customHeaders: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 } },
          secret: { ...str, description: 'write-only; shown as "********" when set' },
          createdAt: { ...ts, readOnly: true }, updatedAt: { ...ts, readOnly: true },
        },
      },
      SMTPSettings: {
        type: 'object',
        properties: {
          id: { ...int, readOnly: true }, enabled: bool, server: str, port: { type: 'integer', minimum: 1, maximum: 65535 },
          useAuth: bool, useTLS: bool, username: str, password: { ...str, description: 'shown as "********" when set' },
          fromEmail: str, fromName: str,
        },
      },
      Stats: { type: 'object', additionalProperties: int },
      Health: { type: 'object', properties: { status: str, kernel: { enum: ['on', 'off'] }, version: str } },
    },
  },
  security: [{ apiKey: [] }, { bearer: [] }],
  paths: {
    '/healthz': { get: { summary: 'Liveness and kernel backend', security: [], responses: { 200: { description: 'ready', ...json(ref('Health')) } } } },
    '/api/openapi.json': { get: op('This document', { 200: { description: 'OpenAPI document', ...json({ type: 'object' }) } }, []) },
    '/api/servers': {
      get: op('List servers', { 200: { description: 'servers by id', ...json({ type: 'array', items: ref('Server') }) } }, []),
      post: op('Create a server', { 201: { description: 'created', ...json(ref('Server')) } }, [400, 413], body('Server')),
    },
    '/api/servers/{id}': withId({
      get: op('Read a server', { 200: { description: 'the server', ...json(ref('Server')) } }, [404]),
      put: op('Update a server', { 200: { description: 'updated', ...json(ref('Server')) } }, [400, 404, 413], body('Server')),
      delete: op('Delete a server with its peers and webhooks', { 204: { description: 'deleted' } }, [404]),
    }),
    '/api/servers/{id}/peers': withId({
      get: op('List peers', { 200: { description: 'peers by id', ...json({ type: 'array', items: ref('Peer') }) } }, [400, 404], {
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }, { name: 'offset', in: 'query', schema: { type: 'integer' } }],
      }),
      post: op('Create a peer', { 201: { description: 'created', ...json(ref('Peer')) } }, [400, 404, 413], body('Peer')),
    }),
    '/api/peers/{id}': withId({
      get: op('Read a peer', { 200: { description: 'the peer', ...json(ref('Peer')) } }, [404]),
      put: op('Update a peer', { 200: { description: 'updated', ...json(ref('Peer')) } }, [400, 404, 413], body('Peer')),
      delete: op('Delete a peer', { 204: { description: 'deleted' } }, [404]),
    }),
    '/api/peers/{id}/config': withId({
      get: op('WireGuard .conf of a peer', { 200: { description: '.conf text', content: { 'text/plain': { schema: str } } } }, [404]),
    }),
    '/api/peers/{id}/qrcode': withId({
      get: op('QR code PNG of the .conf', { 200: { description: 'PNG', content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } } } }, [404]),
    }),
    '/api/servers/{id}/stats': withId({ get: op('Server statistics', { 200: { description: 'counts', ...json(ref('Stats')) } }, [404]) }),
    '/api/servers/{id}/webhooks': withId({
      get: op('List webhooks', { 200: { description: 'webhooks by id', ...json({ type: 'array', items: ref('Webhook') }) } }, [404]),
      post: op('Create a webhook', { 201: { description: 'created', ...json(ref('Webhook')) } }, [400, 404, 413], body('Webhook')),
    }),
    '/api/webhooks/{id}': withId({
      get: op('Read a webhook', { 200: { description: 'the webhook', ...json(ref('Webhook')) } }, [404]),
      put: op('Update a webhook', { 200: { description: 'updated', ...json(ref('Webhook')) } }, [400, 404, 413], body('Webhook')),
      delete: op('Delete a webhook', { 204: { description: 'deleted' } }, [404]),
    }),
    '/api/settings/smtp': {
      get: op('SMTP settings', { 200: { description: 'settings', ...json(ref('SMTPSettings')) } }, []),
      post: op('Save SMTP settings', { 200: { description: 'saved', ...json(ref('SMTPSettings')) } }, [400, 413], body('SMTPSettings')),
    },
    '/api/stats': { get: op('Global statistics', { 200: { description: 'counts', ...json(ref('Stats')) } }, []) },
  } as Record<string, Record<string, unknown>>,
};
