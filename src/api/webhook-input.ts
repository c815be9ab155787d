// Validation of a webhook body: its URL (and where it points: see net/address-guard),
// action codes, template and the custom headers (the UTF-8 bytes of a JSON object, or that
// object itself), which must be headers Node can send.
import http from 'node:http';
import { ACTIONS } from '../events/bus';
import { hostRefusal, inputRefusalText, urlPort, type GuardFacts } from '../net/address-guard';
import type { WebhookTemplate } from '../store/webhooks';
import { badField, oneOf, readBool, readIntArray, readName, readString, type Body } from './fields';
import { MASK } from '../views/present';

export interface WebhookInput {
  name?: string;
  url?: string;
  isEnabled?: boolean;
  isGlobal?: boolean;
  verifySSL?: boolean;
  subscribedActions?: number[];
  template?: WebhookTemplate;
  defaultPayload?: string;
  customBody?: string;
  customHeaders?: string;
  /** undefined: keep the stored secret (absent, or sent back masked). */
  secret?: string;
}

const MAX_ACTION = Math.max(...Object.values(ACTIONS));
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'content-type', 'x-wgcp-signature']);

function jsonObjectText(field: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badField(field, 'must hold a JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw badField(field, 'must hold a JSON object');
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

function readCustomHeaders(body: Body): string | undefined {
  const v = body.customHeaders;
  if (v === undefined || v === null) return undefined;
  let obj: Record<string, unknown>;
  if (Array.isArray(v)) {
    if (v.length > 16_384) throw badField('customHeaders', 'must have at most 16384 bytes');
    if (v.some((b) => typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255)) {
      throw badField('customHeaders', 'must hold bytes: whole numbers between 0 and 255');
    }
    if (v.length === 0) return '';
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(v as number[]));
    } catch {
      throw badField('customHeaders', 'bytes must be UTF-8 text');
    }
    obj = jsonObjectText('customHeaders', text);
  } else if (typeof v === 'object') {
    obj = v as Record<string, unknown>;
  } else {
    throw badField('customHeaders', 'must be an array of bytes of a JSON object, or a JSON object');
  }
  for (const [name, value] of Object.entries(obj)) {
    if (!TOKEN.test(name) || !nodeAccepts(() => http.validateHeaderName(name))) throw badField('customHeaders', `has an invalid header name "${name}"`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw badField('customHeaders', `must not set "${name}"`);
    if (typeof value !== 'string' || value.length > 4096 || !nodeAccepts(() => http.validateHeaderValue(name, value))) {
      throw badField('customHeaders', `value of "${name}" must be a string on one line of Latin-1 text without control characters`);
    }
  }
  return Object.keys(obj).length === 0 ? '' : JSON.stringify(obj);
}

/** `facts`: wgcpd's listeners and the host's addresses, for the address guard. */
export function parseWebhookInput(body: Body, facts: GuardFacts): WebhookInput {
  const input: WebhookInput = {
    name: readName(body, 'name', { max: 64 }),
    url: readString(body, 'url', { max: 2048 }),
    isEnabled: readBool(body, 'isEnabled'),
    isGlobal: readBool(body, 'isGlobal'),
    verifySSL: readBool(body, 'verifySSL'),
    subscribedActions: readIntArray(body, 'subscribedActions', 1, MAX_ACTION, MAX_ACTION),
    template: oneOf(body, 'template', ['default', 'slack', 'discord', 'custom'] as const),
    defaultPayload: readString(body, 'defaultPayload', { max: 65_536 }),
    customBody: readString(body, 'customBody', { max: 65_536 }),
    customHeaders: readCustomHeaders(body),
    secret: readString(body, 'secret', { max: 256 }),
  };
  if (input.secret === MASK) input.secret = undefined;
  if (input.url !== undefined) {
    let u: URL | null = null;
    try { u = new URL(input.url); } catch { /* refused below */ }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
      throw badField('url', 'must be an http:// or https:// URL');
    }
    const refusal = hostRefusal(u.hostname, urlPort(u), facts);
    if (refusal) throw badField('url', inputRefusalText(refusal));
  }
  if (input.defaultPayload) jsonObjectText('defaultPayload', input.defaultPayload);
  return input;
}

/** A custom template needs a body to send. */
