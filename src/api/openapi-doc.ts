// The OpenAPI 3.1 description of the control-plane API, the contract the clients read: the
// operations of routes that declare their shapes (`doc`, made by openapi-routes.ts) and those
// still written here by hand; the schemas of the described resources come from their
// descriptions. A test holds its list of operations equal to the router's.
import type { Route } from '../http/router';
import { VERSION } from '../version';
import { jsonSchema } from '../resources/describe';
import { PEER } from '../resources/peer';
import { DEVICE } from '../resources/device';
import { SERVER } from '../resources/server';
import { FORWARD } from '../resources/forward';
import { WEBHOOK } from '../resources/webhook';
import { CREDENTIAL } from '../resources/credential';
import { SHARE } from '../resources/share';
import { REGTOKEN } from '../resources/regtoken';
import { pageApiPaths } from '../http/page-openapi';
import { trafficHistoryApiPaths } from './openapi-traffic-history';
import { siteApiPaths } from './openapi-site';
import { backupApiPaths } from './openapi-backup';
import { haApiPaths } from './openapi-ha';
import { accessApiPaths, markRoles } from './openapi-access';
import { passkeyApiPaths } from './openapi-passkeys';
import { addRouteOperations } from './openapi-routes';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const err = (description: string) => ({ description, ...json(ref('Error')) });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [String(c), err(ERROR_TEXT[c])]));
const ERROR_TEXT: Record<number, string> = {
  400: 'invalid request; `field` names the bad field (a body nested deeper than 32 levels is 400 too)', 401: 'missing or wrong credentials',
  403: 'the role of the credentials is below the one this route needs (`role` names it)',
  404: 'not found', 413: 'body larger than 1 MiB', 500: 'service failure',
};
// The device contract's own responses: no credentials, fixed error texts, 8 KiB bodies.
const deviceErr = (description: string) => ({ description, ...json(ref('DeviceError')) });
const deviceOp = (summary: string, request: string, response: string, codes: Record<number, string>) => ({
  summary, security: [], requestBody: { required: true, ...json(ref(request)) },
  responses: { 200: { description: 'success', ...json(ref(response)) }, ...Object.fromEntries(Object.entries(codes).map(([c, d]) => [c, deviceErr(d)])) },
});
const deviceIdParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "the device's id (its peer's id), never its device_id" };
const withDeviceId = (o: Record<string, unknown>) => ({ parameters: [deviceIdParam], ...o });

const op = (summary: string, success: Record<string, unknown>, codes: number[], extra: Record<string, unknown> = {}) =>
  ({ summary, ...extra, responses: { ...success, ...errors(401, 403, ...codes, 500) } });
const withId = (o: Record<string, unknown>) => ({ parameters: [idParam], ...o });
/** An operation whose 403 also covers a change that deletes (src/ops/deletion-rights.ts). */
const deletionRight = (o: { responses: Record<string, unknown> }, why: string) => ({ ...o, responses: { ...o.responses, 403: err(why) } });
const body = (name: string) => ({ requestBody: { required: true, ...json(ref(name)) } });

const str = { type: 'string' };
const int = { type: 'integer', format: 'int64' };
const bool = { type: 'boolean' };
const ts = { type: 'string', format: 'date-time' };

const openApiDocument = {
  openapi: '3.1.0',
  info: { title: 'wgcp control-plane API', version: '1.0', 'x-wgcp-version': VERSION },
  components: {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'wg-control-key' },
      bearer: { type: 'http', scheme: 'bearer' },
    },
    schemas: {
      Error: {
        type: 'object', required: ['error', 'code'], additionalProperties: str,
        properties: { error: str, code: { ...str, description: 'stable: WGCP_<WHAT>, or WGCP_HTTP_<status> for an error without its own (docs/api.md)' }, field: str, role: str },
      },
      Server: jsonSchema(SERVER),
      Peer: jsonSchema(PEER),
      Webhook: jsonSchema(WEBHOOK),
      SMTPSettings: {
        type: 'object',
        properties: {
          id: { ...int, readOnly: true }, enabled: bool, server: str, port: { type: 'integer', minimum: 1, maximum: 65535 },
          useAuth: bool, useTLS: bool, username: str, password: { ...str, description: 'shown as "********" when set' },
          fromEmail: str, fromName: str,
        },
      },
      Device: jsonSchema(DEVICE),
      DeviceUpdate: { type: 'object', required: ['suspended'], properties: { suspended: bool } },
      PortForward: jsonSchema(FORWARD),
      RegistrationToken: jsonSchema(REGTOKEN),
      ProvisionRequest: { type: 'object', required: ['token', 'hwid'], properties: { token: { ...str, format: 'uuid' }, hwid: { ...str, maxLength: 128 } } },
      ProvisionResponse: {
        type: 'object', required: ['encrypted_config'],
        properties: { encrypted_config: { ...str, description: 'standard base64 of nonce(12) || AES-256-GCM ciphertext || tag(16); key SHA-256(hwid + SERVER_SALT)' } },
      },
      HeartbeatRequest: {
        type: 'object', required: ['device_id'],
        properties: {
          device_id: { ...str, format: 'uuid' }, status: str, state: str, tunnel_up: bool, last_handshake: { ...str, format: 'date-time' },
          networks: { type: 'array', maxItems: 64, items: str, description: "wgcp's own, optional: the prefixes behind the device, set on its peer as its `networks` when they differ (the same rules; 400 WGCP_DEVICE_NETWORKS_REFUSED); left out: unchanged" },
          interval: { type: 'integer', minimum: 1, maximum: 86400, description: "wgcp's own, optional: the agent's heartbeat interval in seconds, shown to admins" },
        },
      },
      HeartbeatResponse: {
        type: 'object',
        properties: {
          device_id: str, status: { const: 'ok' }, internal_ip: str, private_key: { ...str, description: '64 hex characters' },
          preshared_key: { ...str, description: '64 hex characters' }, server_pub: { ...str, description: '64 hex characters' },
          endpoint: str, server_wg_ip: str, dns: str, allowed_ips: str,
          forwards_hash: { ...str, description: 'hex SHA-256 of the canonical JSON array of the forwards, sorted by protocol then listenPort' },
        },
      },
      DeviceError: { type: 'object', required: ['error', 'code'], additionalProperties: false, properties: { error: str, code: str, field: str } },
      Delivery: {
        type: 'object',
        properties: {
          id: int, webhookID: int, deliveryID: { type: ['integer', 'null'], description: 'the outbox item (X-Wgcp-Delivery); null for tests' },
          event: str, attempt: int, outcome: { enum: ['delivered', 'retrying', 'failed', 'test'] },
          httpStatus: { type: ['integer', 'null'] }, error: str, durationMs: int, timestamp: ts,
        },
      },
      MailTo: { type: 'object', properties: { to: { ...str, format: 'email' } } },
      MailSent: { type: 'object', properties: { sent: bool, to: str, messageId: str } },
      Stats: { type: 'object', additionalProperties: int },
      Credential: jsonSchema(CREDENTIAL),
      Share: jsonSchema(SHARE),
      RoleChange: { type: 'object', required: ['role'], properties: { role: { enum: ['admin', 'operator', 'viewer'] } } },
      Health: {
        type: 'object',
        properties: {
          status: { enum: ['ok', 'degraded'], description: 'degraded (still 200) while changes are stored but not all applied: the kernel backend is off, a server could not be brought up, or a repair of the kernel keeps failing' },
          reasons: { type: 'array', items: str, description: 'why the status is degraded, one sentence each; absent when ok' },
          kernel: { enum: ['on', 'off'] }, version: str, kernelReason: { ...str, description: 'why the kernel backend is off; absent when on' },
          failures: { type: 'array', description: 'servers that could not be brought up; absent when none', items: { type: 'object', properties: { serverID: int, interface: str, reason: str, since: ts, attempts: int, nextRetryAt: ts } } },
          failingRepairs: {
            type: 'array', description: 'repairs of kernel drift that keep failing (retried with back-off); absent when none',
            items: { type: 'object', properties: { kind: { enum: ['peer', 'link', 'nft', 'ipv6', 'shaping'] }, serverID: { type: ['integer', 'null'] }, interface: { type: ['string', 'null'] }, reason: str, since: ts, attempts: int, nextRetryAt: ts } },
          },
        },
      },
    },
  },
  security: [{ apiKey: [] }, { bearer: [] }],
  paths: {
    ...pageApiPaths,
    ...trafficHistoryApiPaths,
    ...backupApiPaths,
    ...haApiPaths,
    ...accessApiPaths,
    ...siteApiPaths,
    ...passkeyApiPaths,
    '/healthz': { get: { summary: 'Liveness and kernel backend', security: [], responses: { 200: { description: 'ready', ...json(ref('Health')) } } } },
    '/api/openapi.json': { get: op('This document', { 200: { description: 'OpenAPI document', ...json({ type: 'object' }) } }, []) },
    '/api/servers': {
      get: {
        ...op('List servers', { 200: { description: 'servers by id', ...json({ type: 'array', items: ref('Server') }) } }, [400]),
        parameters: [{ name: 'peers', in: 'query', description: '"none": each server without its peers (light at 10,000 peers)', schema: { enum: ['none'] } }],
      },
      post: op('Create a server', { 201: { description: 'created', ...json(ref('Server')) } }, [400, 413], body('Server')),
    },
    '/api/servers/{id}': withId({
      get: op('Read a server', { 200: { description: 'the server', ...json(ref('Server')) } }, [404]),
      put: {
        ...op('Update a server', { 200: { description: 'updated', ...json(ref('Server')) } }, [400, 404, 413], body('Server')),
        parameters: [{ name: 'peers', in: 'query', description: '"none": the answer without the server\'s peers (light at 10,000 peers)', schema: { enum: ['none'] } }],
      },
      delete: op('Delete a server with its peers and webhooks', { 204: { description: 'deleted' } }, [404]),
    }),
    '/api/servers/{id}/peers': withId({
      get: op('List peers', { 200: { description: 'peers by id', ...json({ type: 'array', items: ref('Peer') }) } }, [400, 404], {
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }, { name: 'offset', in: 'query', schema: { type: 'integer' } },
          { name: 'q', in: 'query', schema: str, description: 'found in the name, e-mail, address or public key' },
          { name: 'sort', in: 'query', schema: { enum: ['id', 'name', 'email', 'ip', 'enabled', 'dataLimitGB', 'currentDataUsageBytes', 'expiresAt', 'createdAt', 'latestHandshake'] } },
          { name: 'order', in: 'query', schema: { enum: ['asc', 'desc'] } }],
        description: 'With any of limit, offset, q, sort or order: one page, and X-Total-Count holds how many peers match.',
      }),
      post: op('Create a peer', { 201: { description: 'created', ...json(ref('Peer')) } }, [400, 404, 413], body('Peer')),
    }),
    '/api/peers/{id}': withId({
      get: op('Read a peer', { 200: { description: 'the peer', ...json(ref('Peer')) } }, [404]),
      put: deletionRight(op('Update a peer', { 200: { description: 'updated', ...json(ref('Peer')) } }, [400, 404, 413], body('Peer')),
        'the role is below the route\'s, or (`field` expiresAt, `role` admin) an expiry set or brought nearer: that schedules a deletion'),
      delete: op('Delete a peer', { 204: { description: 'deleted' } }, [404]),
    }),
    '/api/peers/{id}/config': withId({
      get: op('WireGuard .conf of a peer (500, naming the field, when a stored value holds a control character: refused, never printed)', { 200: { description: '.conf text', content: { 'text/plain': { schema: str } } } }, [404]),
    }),
    '/api/peers/{id}/qrcode': withId({
      get: op('QR code PNG of the .conf (500 as for the .conf when a stored value holds a control character)', { 200: { description: 'PNG', content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } } } }, [404]),
    }),
    '/api/servers/{id}/stats': withId({ get: op('Server statistics', { 200: { description: 'counts', ...json(ref('Stats')) } }, [404]) }),
    '/api/settings/smtp': {
      get: op('SMTP settings', { 200: { description: 'settings', ...json(ref('SMTPSettings')) } }, []),
      post: op('Save SMTP settings', { 200: { description: 'saved', ...json(ref('SMTPSettings')) } }, [400, 413], body('SMTPSettings')),
    },
    '/api/stats': { get: op('Global statistics', { 200: { description: 'counts', ...json(ref('Stats')) } }, []) },
    '/api/webhooks/{id}/deliveries': withId({
      get: op('Recent delivery attempts of a webhook (the newest 100, by id)', { 200: { description: 'attempts', ...json({ type: 'array', items: ref('Delivery') }) } }, [404]),
    }),
    '/api/webhooks/{id}/test': withId({
      post: op('Send a test event to the webhook now (whatever it subscribes to)', {
        200: { description: 'the receiver accepted it', ...json({ type: 'object', properties: { delivered: bool, httpStatus: int, durationMs: int } }) },
        502: err('the receiver failed or answered other than 2xx; the error says how'),
      }, [404]),
    }),
    '/api/peers/{id}/email': withId({
      post: op("Mail the peer's .conf (attached) and QR code (inline) to `to` or the peer's email", {
        200: { description: 'sent', ...json(ref('MailSent')) },
        409: err('SMTP is not enabled'), 502: err('the SMTP server refused or failed; the error carries its words'),
      }, [400, 404, 413], { requestBody: { required: false, ...json(ref('MailTo')) } }),
    }),
    '/api/settings/smtp/test': {
      post: op('Send a test message with the stored SMTP settings to `to` or the sender address', {
        200: { description: 'sent', ...json(ref('MailSent')) },
        409: err('server or fromEmail not set'), 502: err('the SMTP server refused or failed; the error carries its words'),
      }, [400, 413], { requestBody: { required: false, ...json(ref('MailTo')) } }),
    },
    '/api/events': {
      get: op('WebSocket stream of events (the webhook envelope as JSON) and usage snapshots. Credentials as for the API, '
        + 'or an access token offered as a Sec-WebSocket-Protocol value (with "wgcp" beside it, which the server then selects). '
        + 'Closed with code 4401 when the key, token or session that opened it ends (revoked, expired, signed out)', {
        101: { description: 'switching to WebSocket' },
        426: err('a plain GET: connect with Upgrade: websocket'),
      }, []),
    },
    '/api/devices': { get: op('List devices', { 200: { description: 'devices', ...json({ type: 'array', items: ref('Device') }) } }, []) },
    '/api/devices/{id}': withDeviceId({
      get: op('Read a device', { 200: { description: 'the device', ...json(ref('Device')) } }, [404]),
      put: op('Suspend or reinstate a device', { 200: { description: 'updated', ...json(ref('Device')) } }, [400, 404, 413], body('DeviceUpdate')),
      delete: deletionRight(op('Delete a device and its peer', { 204: { description: 'deleted' } }, [404]), 'below admin: removing a device deletes its peer'),
    }),
    '/api/devices/{id}/rotate': withDeviceId({
      post: op("Give the device's peer new keys (the device gets them at its next heartbeat)", { 200: { description: 'the device', ...json(ref('Device')) } }, [404]),
    }),
    '/api/devices/{id}/forwards': withDeviceId({
      get: op('List port forwards of a device', { 200: { description: 'forwards', ...json({ type: 'array', items: ref('PortForward') }) } }, [404]),
      post: op('Add a port forward (DNAT in forward mode)', { 201: { description: 'created', ...json(ref('PortForward')) } }, [400, 404, 413], body('PortForward')),
    }),
    '/api/forwards/{id}': withId({ delete: op('Remove a port forward', { 204: { description: 'removed' } }, [404]) }),
    '/api/v1/provision': {
      post: deviceOp('Device API: exchange a registration token and hwid for the encrypted configuration', 'ProvisionRequest', 'ProvisionResponse', {
        400: '`invalid token format`, `invalid hardware id`, `token already used` (also for the same hwid again, unless WGCP_PROVISION_RETRY_WINDOW is set), or malformed JSON',
        403: '`invalid token` (unknown) or `token expired`', 413: 'body larger than 8 KiB (refused on Content-Length before it is read)',
        429: 'too many failed attempts from this address, or too many device requests from this address or the fleet (WGCP_DEVICE_RATE); see Retry-After', 500: '`provisioning failed`',
      }),
    },
    '/api/v1/heartbeat': {
      post: deviceOp('Device API: report status and get the current configuration', 'HeartbeatRequest', 'HeartbeatResponse', {
        400: '`invalid device id`, or a status field of the wrong type', 403: '`device is suspended`', 404: '`device not found`',
        413: 'body larger than 8 KiB (refused on Content-Length before it is read)', 429: 'too many device requests from this address, this device or the fleet (WGCP_DEVICE_RATE); see Retry-After', 500: '`heartbeat failed`',
      }),
    },
  } as Record<string, Record<string, unknown>>,
};

/** The document, each operation with credentials marked with the role its route declares. */
export function openApiDocumentFor(routes: readonly Route[]): typeof openApiDocument {
  // A copy of each path's entry: the routes' operations join it (each daemon's own routes).
  const paths = Object.fromEntries(Object.entries(openApiDocument.paths).map(([p, item]) => [p, { ...item }]));
  addRouteOperations(paths, routes);
  markRoles(paths, routes);
  return { ...openApiDocument, paths };
}
