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

export function importRoutes(app: App): Route[] {
  return [
    {
      method: 'POST', path: '/api/import', auth: 'control', role: 'admin', bodyLimit: IMPORT_BODY_LIMIT,
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
