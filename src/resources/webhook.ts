// The webhook, described once: its record (a row of `webhooks`), its input rules, what each
// role sees of it and its OpenAPI schema; the store's row mapping, the body's parsing, the
// presenter and the page's types come from here. The rule that spans fields (a custom
// template needs a body) is the operation's (ops/webhooks.ts); delivering events is events/.
//
// What a role sees: a webhook's URL often is the credential (Slack's and Discord's carry
// their token in the path) and its headers often carry one (`Authorization`, `X-Api-Key`);
// its body templates may hold one too. Only the role that may change a webhook (admin) sees
// them whole; every other role, wherever a webhook is shown (its routes, a server with its
// webhooks), sees the URL's scheme and host, the header names, and masks (docs/access.md).
import http from 'node:http';
import { fieldError } from '../error-registry';
import { hostRefusal, inputRefusalText, urlPort } from '../net/address-guard';
import { MASK, type Body, type Resource, type Role } from './describe';
import { oneOf, readBool, readIntArray, readName, readString } from './read';

/** The event codes of the contract, the numbers a webhook subscribes to (events/bus.ts names them). */
export const ACTIONS = {
  peerCreated: 1,
  peerUpdated: 2,
  peerDeleted: 3,
  peerRestricted: 4,
  peerExpired: 5,
  deviceProvisioned: 6,
  deviceSuspended: 7,
  serverChanged: 8,
  kernelDrift: 9,
} as const;
const MAX_ACTION = Math.max(...Object.values(ACTIONS));

export type WebhookTemplate = 'default' | 'slack' | 'discord' | 'custom';

export interface WebhookRecord {
  id: number;
  serverId: number;
  name: string;
  url: string;
  isEnabled: boolean;
  isGlobal: boolean;
  verifySSL: boolean;
  subscribedActions: number[];
  template: WebhookTemplate;
  defaultPayload: string;
  customBody: string;
  /** The JSON object text of header names to values ('' for none); the API shows its UTF-8 bytes. */
  customHeaders: string;
  secret: string;
  createdAt: string;
  updatedAt: string;
}

/** The least role that sees a webhook's URL, headers and templates whole: the one that may change them. */
export const WEBHOOK_WHOLE_ROLE: Role = 'admin';

/** `https://hooks.slack.com/********`: the scheme and host (never user:password@), the rest masked. */
export function outlineUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/${MASK}`;
  } catch {
    return MASK;
  }
}

/** The stored JSON object of header names to values with every value masked (names kept). */
export function outlineHeaders(json: string): string {
  if (json.trim() === '') return '';
  try {
    const parsed = JSON.parse(json) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return '';
    return JSON.stringify(Object.fromEntries(Object.keys(parsed).map((name) => [name, MASK])));
  } catch {
    return '';
  }
}

const maskUnlessEmpty = (text: string): string => (text === '' ? '' : MASK);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'content-type', 'x-wgcp-signature']);

function jsonObjectText(field: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fieldError(field, 'must hold a JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw fieldError(field, 'must hold a JSON object');
  return parsed as Record<string, unknown>;
}

/** Node's own check, the one a request would fail at: what passes here can be sent. */
function nodeAccepts(check: () => void): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}

/** The UTF-8 bytes of a JSON object of headers, or that object itself; headers Node can send. */
function readCustomHeaders(body: Body, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  let obj: Record<string, unknown>;
  if (Array.isArray(v)) {
    if (v.length > 16_384) throw fieldError(field, 'must have at most 16384 bytes');
    if (v.some((b) => typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255)) {
      throw fieldError(field, 'must hold bytes: whole numbers between 0 and 255');
    }
    if (v.length === 0) return '';
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(v as number[]));
    } catch {
      throw fieldError(field, 'bytes must be UTF-8 text');
    }
    obj = jsonObjectText(field, text);
  } else if (typeof v === 'object') {
    obj = v as Record<string, unknown>;
  } else {
    throw fieldError(field, 'must be an array of bytes of a JSON object, or a JSON object');
  }
  for (const [name, value] of Object.entries(obj)) {
    if (!TOKEN.test(name) || !nodeAccepts(() => http.validateHeaderName(name))) throw fieldError(field, `has an invalid header name "${name}"`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw fieldError(field, `must not set "${name}"`);
    if (typeof value !== 'string' || value.length > 4096 || !nodeAccepts(() => http.validateHeaderValue(name, value))) {
      throw fieldError(field, `value of "${name}" must be a string on one line of Latin-1 text without control characters`);
    }
  }
  return Object.keys(obj).length === 0 ? '' : JSON.stringify(obj);
}

const str = { type: 'string' };
const int = { type: 'integer', format: 'int64' };
const ts = { type: 'string', format: 'date-time' };
const bit = { write: (v: boolean) => (v ? 1 : 0), read: (v: number) => v === 1 };
const belowAdmin = 'other roles than admin see "********" when set';
/** Roles below admin see the masked form. */
const wholeForAdmin = (outline: (v: string) => string) => ({ role: WEBHOOK_WHOLE_ROLE, outline });

export const WEBHOOK: Resource<WebhookRecord> = {
  name: 'Webhook',
  table: 'webhooks',
  required: ['url'],
  fields: {
    id: { column: 'id', schema: int },
    serverId: { json: 'serverID', column: { name: 'server_id', insertOnly: true }, schema: int },
    name: { column: 'name', input: (b, f) => readName(b, f, { max: 64 }), initial: () => '', schema: str },
    url: {
      column: 'url', whole: wholeForAdmin(outlineUrl),
      schema: { ...str, description: 'whole for admins; other roles see its scheme and host, the rest "********" (e.g. https://hooks.slack.com/********)' },
      // Where it points is checked against wgcpd's own listeners and the host's addresses (net/address-guard.ts).
      input: (b, f, ctx) => {
        const v = readString(b, f, { max: 2048 });
        if (v === undefined) return undefined;
        let u: URL | null = null;
        try { u = new URL(v); } catch { /* refused below */ }
        if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) throw fieldError(f, 'must be an http:// or https:// URL');
        const refusal = ctx.guard ? hostRefusal(u.hostname, urlPort(u), ctx.guard) : null;
        if (refusal) throw fieldError(f, inputRefusalText(refusal));
        return v;
      },
    },
    isEnabled: { column: { name: 'is_enabled', ...bit }, input: readBool, initial: () => true, schema: { type: 'boolean' } },
    isGlobal: { column: { name: 'is_global', ...bit }, input: readBool, initial: () => false, schema: { type: 'boolean' } },
    verifySSL: { column: { name: 'verify_ssl', ...bit }, input: readBool, initial: () => true, schema: { type: 'boolean' } },
    subscribedActions: {
      column: { name: 'subscribed_actions', write: (v: number[]) => JSON.stringify(v), read: (v: string) => JSON.parse(v) as number[] },
      input: (b, f) => readIntArray(b, f, 1, MAX_ACTION, MAX_ACTION), initial: () => [],
      schema: { type: 'array', items: { type: 'integer', minimum: 1, maximum: MAX_ACTION } },
    },
    template: { column: 'template', input: (b, f) => oneOf(b, f, ['default', 'slack', 'discord', 'custom'] as const), initial: () => 'default', schema: { enum: ['default', 'slack', 'discord', 'custom'] } },
    defaultPayload: {
      column: 'default_payload', whole: wholeForAdmin(maskUnlessEmpty), initial: () => '', schema: { ...str, description: belowAdmin },
      input: (b, f) => {
        const v = readString(b, f, { max: 65_536 });
        if (v) jsonObjectText(f, v);
        return v;
      },
    },
    customBody: { column: 'custom_body', whole: wholeForAdmin(maskUnlessEmpty), input: (b, f) => readString(b, f, { max: 65_536 }), initial: () => '', schema: { ...str, description: belowAdmin } },
    customHeaders: {
      column: 'custom_headers', whole: wholeForAdmin(outlineHeaders), input: readCustomHeaders, initial: () => '',
      show: (v) => [...Buffer.from(v, 'utf8')],
      schema: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 }, description: 'UTF-8 of a JSON object of header names to values; other roles than admin see each value as "********"' },
    },
    secret: {
      column: 'secret', initial: () => '', show: maskUnlessEmpty, schema: { ...str, description: 'write-only; shown as "********" when set' },
      // Sent back masked, as every answer shows it: the stored secret stays.
      input: (b, f) => { const v = readString(b, f, { max: 256 }); return v === MASK ? undefined : v; },
    },
    createdAt: { column: { name: 'created_at', insertOnly: true }, schema: ts },
    updatedAt: { column: 'updated_at', schema: ts },
  },
};
