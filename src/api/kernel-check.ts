// GET /api/kernel/check: `wgcp check` done by the daemon, which holds CAP_NET_ADMIN, for the
// CLI on its admin socket (src/cli/check.ts) where the CLI itself cannot read nft (OpenWrt's
// `wgcp` runs as the daemon's user). It compares the kernel with the database and repairs
// nothing; the reconciler repairs on its own schedule. Admin's: it names links and addresses.
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { kernelCheckReport } from '../ops/kernel-check';
import { pairOf } from '../ha/pair';

export function kernelCheckRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/kernel/check', auth: 'control', role: 'admin',
      doc: () => ({
        summary: "`wgcp check` done by the daemon: the kernel compared with the database, nothing repaired (the CLI's way on the admin socket, where it lacks CAP_NET_ADMIN)",
        answers: {
          200: {
            description: 'the report; `same` is false when something differs',
            shape: { type: 'object', properties: { same: { type: 'boolean' }, differences: { type: 'array', items: { type: 'object', properties: { kind: { enum: ['link', 'peer', 'ipv6', 'nft', 'shaping'] }, summary: { type: 'string', description: 'what differs, no keys' } } } } } },
          },
        },
      }),
      async handler() {
        // A standby's site links are down by design (docs/ha.md): not a difference.
        const siteLinksUp = pairOf(app)?.role !== 'standby';
        return { ...ok(await kernelCheckReport(app.store, app.config.wanInterfaces, siteLinksUp)), headers: { 'Cache-Control': 'no-store' } };
      },
    },
  ];
}
