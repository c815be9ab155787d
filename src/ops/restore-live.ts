// A restore into the running daemon, as one change of the runner (`wgcp restore` through the
// daemon's socket, POST /api/restore): the copy `wgcp restore` checked and staged in the data
// folder replaces every row in one transaction, the kernel goes from the servers it holds to
// the restored ones (a server that differs is taken down and made again from the copy; one
// that is the same is left alone), and each server's `serverChanged` is announced. The
// database before it is kept beside it, as a restore without a daemon keeps it.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { apiError } from '../error-registry';
import type { App } from '../app';
import { DB_FILE } from '../store/db';
import { Store } from '../store/store';
import type { ServerRecord } from '../store/servers';
import { replaceAllRows } from '../store/replace-rows';
import { writeSecretFile } from '../first-key';
import { onlineCopy, readMeta } from '../backup/snapshot';
import { serverEventData } from '../views/event-data';
import { foreignLinkError } from '../wg/link-owner';
import type { ChangeOptions, KernelChange } from './runner';
import { PENDING_FILE, RESULT_FILE, fileStamp, saltOfCopyDiffers, writeStateFile, type RestoreResult } from './restore';
import { discardStaged, stagedState } from '../backup/restore-owner';

const SCHEMA = 'restore_copy';

/** What a server is to the kernel: its record, its peers and its forwards. */
function kernelView(store: Store, s: ServerRecord) {
  return { server: s, peers: store.peers.listByServer(s.id), forwards: store.forwards.kernelForwardsOfServer(s.id) };
}

/**
 * The kernel's way from the live servers to the copy's: down what goes, a sync of each
 * server both hold that differs (its rows to the copy's, then the kernel read and put right:
 * a changed peer never takes its server down), up what comes.
 */
function kernelDelta(live: Store, copy: Store, isForeignLink: (name: string) => boolean): { kernel: KernelChange[]; changes: Map<number, { change: 'created' | 'updated' | 'deleted'; server: ServerRecord }> } {
  const before = new Map(live.servers.list().map((s) => [s.id, kernelView(live, s)]));
  const after = new Map(copy.servers.list().map((s) => [s.id, kernelView(copy, s)]));
  const down: KernelChange[] = [];
  const sync: KernelChange[] = [];
  const up: KernelChange[] = [];
  const changes = new Map<number, { change: 'created' | 'updated' | 'deleted'; server: ServerRecord }>();
  for (const [id, b] of before) {
    const a = after.get(id);
    if (a && JSON.stringify(a) === JSON.stringify(b)) continue;
    if (a) {
      // A renamed interface is the same rule as an update's: a link wgcp did not make is never taken over.
      if (a.server.interface !== b.server.interface && isForeignLink(a.server.interface)) throw foreignLinkError(a.server.interface);
      sync.push({ sync: { serverId: id, desired: { server: a.server, peers: copy.peers.kernelPeersOf(id), forwards: a.forwards }, opts: { peers: 'all' } } });
      changes.set(id, { change: 'updated', server: a.server });
      continue;
    }
    // Carries its peers so that the undo of this step makes the server whole again.
    down.push({ server: { before: b.server, after: null, peers: b.peers, forwards: b.forwards } });
    changes.set(id, { change: 'deleted', server: b.server });
  }
  for (const [id, a] of after) {
    if (before.has(id)) continue;
    // The same rule as a new server's: a link wgcp did not make is never taken over.
    if (isForeignLink(a.server.interface)) throw foreignLinkError(a.server.interface);
    up.push({ server: { before: null, after: a.server, peers: a.peers, forwards: a.forwards } });
    changes.set(id, { change: 'created', server: a.server });
  }
  return { kernel: [...down, ...sync, ...up], changes };
}

export interface LiveRestore { before: string; servers: number; peers: number; files: string[] }

export async function restoreStaged(app: App, opts?: ChangeOptions): Promise<LiveRestore> {
  const { dataDir } = app.config;
  const pending = path.join(dataDir, PENDING_FILE);
  // A copy whose `wgcp restore` is gone was abandoned: applied when asked, or never.
  if (stagedState(dataDir, PENDING_FILE) === 'abandoned') discardStaged(dataDir, PENDING_FILE);
  if (!fs.existsSync(pending)) throw apiError('WGCP_RESTORE_NOT_STAGED');
  const now = app.now();
  const result: RestoreResult = { ok: false, at: now.toISOString(), before: null, files: [] };
  const copyDb = new Database(pending, { readonly: true, fileMustExist: true });
  let attached = false;
  try {
    const { files } = readMeta(copyDb);
    if (app.config.serverSalt === null && saltOfCopyDiffers(dataDir, files)) throw apiError('WGCP_RESTORE_NEEDS_RESTART');
    const copy = new Store(copyDb);
    result.before = path.join(dataDir, `${DB_FILE}.before-restore-${fileStamp(now)}`);
    fs.closeSync(fs.openSync(result.before, 'wx', 0o600));
    await onlineCopy(app.store.db, result.before);
    // ATTACH cannot run inside a transaction: the copy is attached before the change's turn.
    app.store.db.prepare(`ATTACH DATABASE ? AS ${SCHEMA}`).run(pending);
    attached = true;
    const out = await app.runner.run('backup.restore', (live) => {
      const { kernel, changes } = kernelDelta(live, copy, (name) => app.kernel.isForeignLink(name));
      return {
        kernel,
        commit({ store, event }) {
          const rows = replaceAllRows(store.db, SCHEMA);
          for (const [id, { change, server }] of changes) event('serverChanged', id, serverEventData(change, server, app.kernel.serverState(id)));
          return { id: null, servers: rows.servers ?? 0, peers: rows.peers ?? 0 };
        },
        audit: (r) => ({ targetType: 'backup', targetId: null, summary: { servers: r.servers, peers: r.peers } }),
      };
    }, opts);
    for (const [name, content] of files) {
      const file = path.join(dataDir, name);
      if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === content) continue;
      writeStateFile(dataDir, name, content, fileStamp(now));
      result.files.push(name);
    }
    result.ok = true;
    return { before: result.before, servers: out.servers, peers: out.peers, files: result.files };
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
    if (result.before) fs.rmSync(result.before, { force: true });
    result.before = null;
    throw err;
  } finally {
    if (attached) app.store.db.prepare(`DETACH DATABASE ${SCHEMA}`).run();
    copyDb.close();
    discardStaged(dataDir, PENDING_FILE);
    writeSecretFile(path.join(dataDir, RESULT_FILE), JSON.stringify(result) + '\n');
  }
}
