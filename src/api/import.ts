// POST /api/import: the CLI's `wgcp import` over HTTP. The body names the source and carries
// the file (text, or base64 for wg-easy's database); the answer is the plan (no secrets) and,
// unless dryRun, the server as made. A conflict is 400 naming the field; nothing is imported.
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, ok } from '../http/reply';
import type { ServerMode } from '../store/servers';
import { showServer } from '../ops/servers';
import type { ImportSource } from '../import/source';
import { badField, oneOf, readBool, readName, readString, required, type Body } from './fields';

/** A wg-easy database in base64 (4/3 of its size) with room to spare; more is 413. */
export const IMPORT_BODY_LIMIT = 8 * 1024 * 1024;

function fileOf(body: Body): Buffer {
  const text = readString(body, 'file', { max: IMPORT_BODY_LIMIT });
  const b64 = readString(body, 'fileBase64', { max: IMPORT_BODY_LIMIT });
  if ((text === undefined) === (b64 === undefined)) throw badField('file', 'give exactly one of file (text) and fileBase64 (a wg-easy database)');
  if (text !== undefined) return Buffer.from(text, 'utf8');
  if (!/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(b64!)) throw badField('fileBase64', 'must be standard base64');
  return Buffer.from(b64!, 'base64');
}

const IMPORT_SOURCES = ['wg-quick', 'wg-easy'] as const satisfies readonly ImportSource[];

// The readers of three formats and the planner load at the first import (a router imports
// once, if ever), not with the daemon: docs/performance.md.
function importCode() {
  return {
    ...(require('../import/source') as typeof import('../import/source')),
    ...(require('../import/plan-text') as typeof import('../import/plan-text')),
    ...(require('../ops/import') as typeof import('../ops/import')),
  };
}

const str = { type: 'string' };

// The OpenAPI shapes of an import: what it takes and the plan it answers.
const PlannedServer = () => ({
  type: 'object',
  properties: {
    name: str, endpoint: str, mode: { enum: ['forward', 'standalone'] }, interface: { type: ['string', 'null'], description: 'null: wgcp<id>' },
    address: str, address6: { type: ['string', 'null'] }, listenPort: { type: 'integer' }, dns: str, mtu: { type: ['integer', 'null'] },
    publicKey: { ...str, description: 'the server keeps its private key (never shown)' },
  },
});

const PlannedPeer = () => ({
  type: 'object',
  properties: {
    name: str, ip: str, ip6: { type: ['string', 'null'] }, publicKey: str, enabled: { type: 'boolean' },
    expiresAt: { type: ['string', 'null'], format: 'date-time' }, allowInternet: { type: 'boolean' },
    hasPrivateKey: { type: 'boolean', description: 'wg-easy kept the client\'s private key; a wg-quick config never holds one' },
    hasPresharedKey: { type: 'boolean' },
  },
});

const ImportPlan = () => ({
  type: 'object',
  properties: {
    source: { ...str, description: '"wg-quick", "wg-easy v14 (wg0.json)" or "wg-easy v15 (database)"' },
    server: PlannedServer(),
    peers: { type: 'array', items: PlannedPeer() },
    notCarried: { type: 'array', items: str, description: 'what the import cannot carry over, one sentence each' },
    notes: { type: 'array', items: str, description: 'choices the import made where the source says nothing' },
  },
});

const ImportRequest = () => ({
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
});

export function importRoutes(app: App): Route[] {
  return [
    {
      method: 'POST', path: '/api/import', auth: 'control', role: 'admin', bodyLimit: IMPORT_BODY_LIMIT,
      doc: () => ({
        summary: 'Import a wg-quick config or a wg-easy wg0.json / database as one server with its peers; refused whole on any conflict', body: ImportRequest(),
        answers: {
          200: { description: 'dryRun: the plan; nothing was made', shape: { type: 'object', properties: { dryRun: { const: true }, plan: ImportPlan() } } },
          201: { description: 'imported', shape: { type: 'object', properties: { dryRun: { const: false }, plan: ImportPlan(), server: { $ref: '#/components/schemas/Server' } } } },
        },
        errors: [[400, 'unreadable file, or a conflict (subnet, port, interface, key) with what exists; `field` names it'], [409, 'the interface name is held by a link wgcp did not make'], [413, 'body larger than 8 MiB']],
      }),
      async handler(ctx) {
        const body = await ctx.body();
        const source = required(oneOf(body, 'source', IMPORT_SOURCES), 'source');
        const options = {
          name: readName(body, 'name', { max: 64, min: 1 }),
          endpoint: readString(body, 'endpoint', { max: 260 }),
          mode: oneOf(body, 'mode', ['forward', 'standalone'] as const satisfies readonly ServerMode[]),
          interface: readString(body, 'interface', { max: 15 }),
        };
        const fileName = readString(body, 'fileName', { max: 255 }) ?? null;
        const dryRun = readBool(body, 'dryRun') ?? false;
        const { planFromBytes, checkImport, runImport, planView } = importCode();
        const plan = planFromBytes(source, fileOf(body), fileName, options, app.now());
        if (dryRun) {
          checkImport(app, plan);
          return ok({ dryRun: true, plan: planView(plan) });
        }
        const { server } = await runImport(app, plan, { actor: ctx.actor });
        return created({ dryRun: false, plan: planView(plan), server: showServer(app, server, ctx.actor?.role) });
      },
    },
  ];
}
