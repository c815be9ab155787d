// Global and per-server statistics (DESIGN.md section 2 names the keys).
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { serverFromPath } from './lookups';

// A peer counts as online when its last handshake is this recent.
export const ONLINE_WINDOW_S = 180;

export function statsRoutes(app: App, extraTotals: () => Record<string, number> = () => ({})): Route[] {
  const { store, kernel } = app;
  return [
    {
      method: 'GET', path: '/api/stats', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Global statistics', answers: { 200: { description: 'counts', shape: 'Stats' } } }),
      handler() {
        const peers = store.peers.counts(null);
        return ok({
          totalServers: store.servers.count(),
          totalPeers: peers.total,
          totalWebhooks: store.webhooks.count(null),
          enabledPeers: peers.enabled,
          disabledPeers: peers.total - peers.enabled,
          totalDataUsageBytes: peers.usage,
          totalDevices: 0,
          ...extraTotals(),
        });
      },
    },
    {
      method: 'GET', path: '/api/servers/:id/stats', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Server statistics', answers: { 200: { description: 'counts', shape: 'Stats' } }, errors: [404] }),
      handler(ctx) {
        const server = serverFromPath(app, ctx.params.id);
        const peers = store.peers.counts(server.id);
        // As the last usage cycle read the interface: reading it here (wg show dump) took
        // 80-160 ms at 10,000 peers on wireguard-go, where this count takes a few.
        const since = app.now().getTime() / 1000 - ONLINE_WINDOW_S;
        const online = kernel.serverState(server.id).state === 'failed' ? 0 : store.usage.onlineCount(server.id, since);
        return ok({
          serverID: server.id,
          peerCount: peers.total,
          webhookCount: store.webhooks.count(server.id),
          enabledPeers: peers.enabled,
          disabledPeers: peers.total - peers.enabled,
          onlinePeers: online,
          dataUsageBytes: peers.usage,
        });
      },
    },
  ];
}
