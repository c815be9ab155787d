// The import operation: one server and all its peers from a plan (src/import), one change
// for the runner with one kernel step and its events. A conflict with what exists (subnet,
// port, interface, a key already held) refuses the whole import: nothing half-imported.
import type { App } from '../app';
import type { PeerRecord } from '../store/peers';
import { newPeerRecord } from '../resources/peer';
import type { NewServer, ServerRecord } from '../store/servers';
import type { ImportPlan } from '../import/plan';
import { portHeld } from '../kernel/listening-ports';
import { serverEventData } from '../views/event-data';
import type { ChangeOptions } from './runner';
import { foreignLinkError } from '../wg/link-owner';
import { badField } from './field-error';
import { checkServerConflicts, defaultInterfaceName } from './server-rules';
import { checkServer6 } from './server-rules6';

/** What an import needs of the daemon: the CLI hands its own (a kernel plane that applies nothing, its own runner). */
export type ImportContext = Pick<App, 'store' | 'kernel' | 'now' | 'runner'>;

/**
 * The refusal of a listen port a socket of this router already holds (wg-quick's interface,
 * say), whatever the range: binding it would fail.
 */
export function udpPortTaken(port: number): Error | null {
  return portHeld('udp', port)
    ? badField('listenPort', `${port}/udp is held by another program on this router (is the old interface still up? wg-quick down it first)`)
    : null;
}

function draftOf(plan: ImportPlan, now: string): NewServer {
  const s = plan.server;
  return {
    name: s.name, endpoint: s.endpoint, mode: s.mode, interface: s.interface ?? '', address: s.address, address6: s.address6,
    listenPort: s.listenPort, dns: s.dns, mtu: s.mtu, privateKey: s.privateKey, publicKey: s.publicKey, createdAt: now, updatedAt: now,
  };
}

/** Refuses the plan when it collides with the servers and peers that exist; read inside the caller's transaction. */
function checkConflicts(ctx: Pick<ImportContext, 'store' | 'kernel'>, plan: ImportPlan, draft: NewServer): void {
  const { store, kernel } = ctx;
  // Without a name of its own (draft.interface ''), the server gets wgcp<id>, free by construction.
  checkServerConflicts(store, draft);
  if (draft.interface !== '' && kernel.isForeignLink(draft.interface)) throw foreignLinkError(draft.interface);
  checkServer6(store, draft);
  const servers = store.servers.list();
  const twin = servers.find((s) => s.publicKey === plan.server.publicKey);
  if (twin) throw badField('file', `the server's key is already the key of server ${twin.id} ("${twin.name}"): was it imported before?`);
  for (const p of plan.peers) {
    for (const s of servers) {
      if (s.publicKey === p.publicKey) throw badField('file', `peer "${p.name}": its public key is the key of server ${s.id}`);
      const holder = store.peers.idByPublicKey(s.id, p.publicKey);
      if (holder !== undefined) throw badField('file', `peer "${p.name}": its public key is already peer ${holder}'s on server ${s.id} ("${s.name}")`);
    }
  }
  if (kernel.state === 'on') {
    const taken = udpPortTaken(draft.listenPort);
    if (taken) throw taken;
  }
}

/** A dry run: throws what the import would be refused for, changes nothing. */
export function checkImport(ctx: ImportContext, plan: ImportPlan): void {
  const draft = draftOf(plan, ctx.now().toISOString());
  ctx.store.db.transaction(() => checkConflicts(ctx, plan, draft))();
}

export function runImport(ctx: ImportContext, plan: ImportPlan, opts?: ChangeOptions): Promise<{ server: ServerRecord; peers: PeerRecord[] }> {
  const { kernel } = ctx;
  const now = ctx.now().toISOString();
  return ctx.runner.run('server.import', (store) => {
    const draft = draftOf(plan, now);
    checkConflicts({ store, kernel }, plan, draft);
    const id = store.servers.nextId();
    const server: ServerRecord = { ...draft, id, interface: plan.server.interface ?? defaultInterfaceName(store, id, (name) => kernel.isForeignLink(name)) };
    const firstPeer = store.peers.nextId();
    const peers: PeerRecord[] = plan.peers.map((p, i) => newPeerRecord({
      id: firstPeer + i, serverId: id, name: p.name, ip: p.ip, ip6: p.ip6,
      publicKey: p.publicKey, privateKey: p.privateKey, presharedKey: p.presharedKey,
      allowInternet: p.allowInternet, enabled: p.enabled, disabledReasons: p.enabled ? [] : ['admin'],
      expiresAt: p.expiresAt, createdAt: p.createdAt ?? now, updatedAt: now,
    }));
    return {
      kernel: [{ server: { before: null, after: server, peers, forwards: [] } }],
      commit({ store, event, peerEvent }) {
        store.servers.insert(server);
        for (const p of peers) store.peers.insert(p);
        // Announced as a server made, then its peers one event each, like the API's own creates.
        event('serverChanged', id, serverEventData('created', server, kernel.serverState(id)));
        const made = { id, mode: server.mode };
        for (const p of peers) peerEvent('peerCreated', made, p);
        return { server, peers };
      },
    };
  }, opts);
}
