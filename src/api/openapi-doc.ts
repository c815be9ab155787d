// The OpenAPI 3.1 description of the control-plane API, the contract the clients read: the
// operations of the routes, each declaring its shapes where it is defined (`doc`, made by
// openapi-routes.ts); the schemas of the described resources come from their descriptions,
// the few others are written here.
// test/api-openapi.test.ts holds its operations equal to the router's.
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
import { SITE_LINK } from '../resources/site-link';
import { addRouteOperations } from './openapi-routes';

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
      SiteLink: jsonSchema(SITE_LINK),
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
  paths: {} as Record<string, Record<string, unknown>>,
};

/** The document: every operation comes from its route (shapes, and the role it declares). */
export function openApiDocumentFor(routes: readonly Route[]): typeof openApiDocument {
  // A copy of each path's entry: the routes' operations join it (each daemon's own routes).
  const paths = Object.fromEntries(Object.entries(openApiDocument.paths).map(([p, item]) => [p, { ...item }]));
  addRouteOperations(paths, routes);
  return { ...openApiDocument, paths };
}
