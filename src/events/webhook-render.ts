// Pure rendering of a webhook request from an event: the body by template, the headers
// (custom ones, the content type, the event name, the delivery id) and the signature.
import crypto from 'node:crypto';
import type { WebhookRecord } from '../store/webhooks';
import { VERSION } from '../version';
import type { WgcpEvent } from './bus';
import { withDeviceIdPrefixes } from './device-redaction';

export interface Envelope extends Record<string, unknown> {
  action: number;
  event: string;
  serverID: number;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface RenderedRequest { body: string; headers: Record<string, string> }

/** The event as it leaves the daemon (webhooks and the live stream): device ids by their prefix. */
export function envelopeOf(e: WgcpEvent): Envelope {
  return { action: e.action, event: e.event, serverID: e.serverID, timestamp: e.timestamp, data: withDeviceIdPrefixes(e.data) };
}

function parseObject(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The envelope with the webhook's defaultPayload merged in; the envelope's own keys win. */
export function mergedEnvelope(hook: Pick<WebhookRecord, 'defaultPayload'>, env: Envelope): Record<string, unknown> {
  return { ...parseObject(hook.defaultPayload), ...env };
}

function lookup(root: unknown, path: string): unknown {
  let cur = root;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * Fills {{path.to.value}} placeholders. Strings go in JSON-escaped without their quotes
 * (so `"name": "{{data.peer.name}}"` stays valid JSON); numbers, booleans and null as
 * literals; objects and arrays as JSON; a missing value as nothing.
 */
export function fillTemplate(template: string, values: unknown): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_$.-]+)\s*\}\}/g, (_m, path: string) => {
    const v = lookup(values, path);
    if (v === undefined) return '';
    if (typeof v === 'string') return JSON.stringify(v).slice(1, -1);
    return JSON.stringify(v);
  });
}

const TITLES: Record<string, string> = {
  peerCreated: 'peer created', peerUpdated: 'peer updated', peerDeleted: 'peer deleted',
  peerRestricted: 'peer restricted (data limit reached)', peerExpired: 'peer expired',
  deviceProvisioned: 'device provisioned', deviceSuspended: 'device suspended', serverChanged: 'server changed', kernelDrift: 'kernel drift repaired', test: 'test event',
};

/** One line for chat templates, e.g. "wgcp: peer created: phone (10.1.0.2) on server 1". */
export function summaryLine(env: Envelope): string {
  const peer = env.data.peer as Record<string, unknown> | undefined;
  const device = env.data.device as Record<string, unknown> | undefined;
  const server = env.data.server as Record<string, unknown> | undefined;
  let what = '';
  if (peer) what = `${peer.name ? `${String(peer.name)} ` : ''}(${String(peer.ip ?? `peer ${String(peer.id)}`)})`;
  else if (device) what = `device ${String(device.uuidPrefix ?? device.idPrefix ?? '')}`;
  else if (server) what = `${String(server.name ?? '')}`.trim();
  return `wgcp: ${TITLES[env.event] ?? env.event}${what ? `: ${what}` : ''} on server ${env.serverID}`;
}

export function renderBody(hook: Pick<WebhookRecord, 'template' | 'defaultPayload' | 'customBody'>, env: Envelope): string {
  switch (hook.template) {
    case 'slack': return JSON.stringify({ text: summaryLine(env) });
    case 'discord': return JSON.stringify({ content: summaryLine(env) });
    case 'custom': return fillTemplate(hook.customBody, mergedEnvelope(hook, env));
    default: return JSON.stringify(mergedEnvelope(hook, env));
  }
}

export function sign(secret: string, body: string): string {
  return 'sha256=' + crypto.createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

export function renderRequest(hook: WebhookRecord, env: Envelope, deliveryId: string): RenderedRequest {
  const body = renderBody(hook, env);
  const custom = parseObject(hook.customHeaders);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(custom)) if (typeof v === 'string') headers[k] = v;
  headers['Content-Type'] = 'application/json';
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent')) headers['User-Agent'] = `wgcp/${VERSION}`;
  headers['X-Wgcp-Event'] = env.event;
  headers['X-Wgcp-Delivery'] = deliveryId;
  if (hook.secret) headers['X-Wgcp-Signature'] = sign(hook.secret, body);
  return { body, headers };
}
