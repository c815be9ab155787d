// The one entry point that makes the kernel hold what the store says for a server, as a
// change of the runner (in order with every other change, undone if it fails half way):
// `peers` names the peers to sync (a partial sync: what a replicated or restored row
// changed, constant time a peer), or 'all' (a full sync: every row, then the kernel read
// and put right). The standby router calls it after rows reach its store; nothing is
// written, no event is raised and the audit log leaves it out.
import type { App } from '../app';
import type { ServerState } from '../kernel/plane';
import type { SyncUndo } from '../kernel/server-sync';
import type { KernelPeer } from '../store/peers';
import type { Store } from '../store/store';
import { jobActor, type ChangeOptions, type KernelSync } from './runner';

export interface SyncRequest {
  /** The peers to sync; absent or 'all': the whole server. */
  peers?: number[] | 'all';
  /** The server's device was made again empty by its supervisor (a wireguard-go restart): a full sync brings it up on that device. */
  remade?: boolean;
}

/** The server's rows as the kernel should hold them (of the named peers only, for a partial sync); null: no such server. */
export function desiredOf(store: Store, serverId: number, peers: number[] | 'all'): ServerState | null {
  const server = store.servers.get(serverId);
  if (!server) return null;
  const rows: KernelPeer[] = peers === 'all'
    ? store.peers.kernelPeersOf(serverId)
    : peers.flatMap((id) => { const p = store.peers.get(id); return p && p.serverId === serverId ? [p] : []; });
  return { server, peers: rows, forwards: store.forwards.kernelForwardsOfServer(serverId) };
}

/** Syncs a server's kernel state to the store, in the runner's turn; resolves with the rows the kernel held before. `opts`: a standby's own sync says `replicated`. */
export function syncServer(app: Pick<App, 'runner'>, serverId: number, req: SyncRequest = {}, opts: ChangeOptions = {}): Promise<SyncUndo | undefined> {
  const peers = req.peers ?? 'all';
  const sync: KernelSync = { serverId, desired: null, opts: req.remade ? { peers, remade: true } : { peers } };
  return app.runner.run('kernel.sync', (store) => {
    sync.desired = desiredOf(store, serverId, peers);
    return { kernel: [{ sync }], commit: () => sync.held, audit: false };
  }, { actor: jobActor('kernel sync'), ...opts });
}

/**
 * Start-up, after the plane's prepare loaded the table (fail-closed): each server comes up
 * through its full sync, one after another in the runner's order. One server that cannot
 * come up is marked failed by the plane and retried; it never stops the start.
 */
export async function syncAtStartUp(app: Pick<App, 'runner' | 'store' | 'kernel' | 'log'>): Promise<void> {
  app.kernel.setSyncer?.((serverId, req) => syncServer(app, serverId, req));
  const servers = app.store.servers.list();
  for (const server of servers) {
    await syncServer(app, server.id).catch((err: unknown) => app.log.error('a server could not be synced at start-up: wgcpd runs without it', { serverID: server.id, error: err instanceof Error ? err.message : String(err) }));
  }
  if (app.kernel.state === 'on') {
    app.log.info('kernel reconciled', { servers: servers.length, failed: app.kernel.failures().length, peers: app.store.peers.counts(null).total });
  }
}
