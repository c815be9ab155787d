// GET /api/backup: the same file `wgcp backup` writes, streamed to an admin; encrypted when
// the request carries a `wgcp-backup-passphrase` header. Never cached, never logged.
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import type { App } from '../app';
import type { Route } from '../http/router';
import type * as BackupCreate from '../backup/create';
import { MIN_PASSPHRASE } from '../backup/cipher';
import { badField } from './fields';
import { ok } from '../http/reply';

export const PASSPHRASE_HEADER = 'wgcp-backup-passphrase';

function passphraseOf(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length < MIN_PASSPHRASE) throw badField(PASSPHRASE_HEADER, `must be at least ${MIN_PASSPHRASE} characters`);
  return value;
}

/** Writes one chunk, waiting while the client's socket is full; false once the client is gone. */
function write(res: ServerResponse, chunk: Buffer): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => { res.off('drain', onDrain); res.off('close', onClose); resolve(ok); };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

export function backupRoutes(app: App): Route[] {
  return [
    {
      // Applies the backup `wgcp restore FILE` checked and staged in the data folder: the
      // file never travels through this API, only the word to apply it (docs/operations.md).
      method: 'POST', path: '/api/restore', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'Apply the backup `wgcp restore FILE` checked and staged in the data folder, as one change: every row replaced (the audit log kept), the kernel brought to the restored servers, each server\'s serverChanged announced',
        answers: {
          200: {
            description: 'restored; the database before it is kept in the data folder',
            shape: { type: 'object', required: ['restored'], properties: { restored: { type: 'object', required: ['servers', 'peers', 'stateFiles', 'beforeFile'], properties: {
              servers: { type: 'integer' }, peers: { type: 'integer' }, stateFiles: { type: 'array', items: { type: 'string' } }, beforeFile: { type: 'string' },
            } } } },
          },
        },
        errors: [[409, "no restore is staged, or the backup carries another router's device salt (wgcpd must start again)"]],
      }),
      async handler(ctx) {
        const { restoreStaged } = require('../ops/restore-live') as typeof import('../ops/restore-live');
        const r = await restoreStaged(app, { actor: ctx.actor });
        return ok({ restored: { servers: r.servers, peers: r.peers, stateFiles: r.files, beforeFile: path.basename(r.before) } });
      },
    },
    {
      method: 'GET', path: '/api/backup', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'A backup of the whole state (the same file `wgcp backup` writes); it holds every private key and secret',
        query: [{ name: 'wgcp-backup-passphrase', in: 'header', schema: { type: 'string', minLength: 8 }, description: 'encrypts the backup (scrypt + AES-256-GCM)' }],
        answers: {
          200: {
            description: 'the SQLite database, or its encrypted form when a passphrase was given',
            content: { 'application/vnd.sqlite3': { type: 'string', contentMediaType: 'application/vnd.sqlite3' }, 'application/octet-stream': { type: 'string', contentMediaType: 'application/octet-stream' } },
          },
        },
        errors: [[400, 'the passphrase is shorter than 8 characters']],
      }),
      async handler(ctx) {
        const passphrase = passphraseOf(ctx.req.headers[PASSPHRASE_HEADER]);
        // Loaded at the first backup, not with the daemon (docs/performance.md).
        const { backupFileName, createBackup } = require('../backup/create') as typeof BackupCreate;
        const now = app.now();
        const backup = await createBackup(app.store.db, app.config.dataDir, now, passphrase);
        try {
          ctx.res.writeHead(200, {
            'Content-Type': backup.encrypted ? 'application/octet-stream' : 'application/vnd.sqlite3',
            'Content-Disposition': `attachment; filename="${backupFileName(now, backup.encrypted)}"`,
            'Cache-Control': 'no-store',
            'X-Request-Id': ctx.requestId,
          });
          if (ctx.req.method !== 'HEAD') {
            for await (const chunk of backup.chunks) if (!(await write(ctx.res, chunk))) break;
          }
          ctx.res.end();
        } finally {
          backup.discard();
        }
        return { status: 200 };
      },
    },
  ];
}
