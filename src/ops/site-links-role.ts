// Site links follow the standby pair's role (docs/ha.md, "Site links on a pair"). A link is
// this router handshaking with another one under one key: the two routers of a pair holding
// it up at once would take the session from each other at every handshake. So a link is up
// only where the router acts (alone, or primary) and down on a standby; its row and its keys
// replicate like every row, so a promoted standby brings it up from its own store.
import type { App } from '../app';

/** The role as the pair holds it (src/ha/pair.ts's Pair; named here so that ops/ never imports ha/). */
export interface RoleSource {
  readonly role: 'primary' | 'standby' | 'alone';
  onRole(fn: (role: 'primary' | 'standby' | 'alone') => void): void;
}

/** Start-up brings the links up unless this router starts as a standby; then each change of role brings them up or down, in the runner's turn. */
export async function siteLinksFollowRole(app: App, pair: RoleSource): Promise<void> {
  if (pair.role !== 'standby') await app.kernel.bringUpSiteLinks?.(app.store.siteLinks.list());
  pair.onRole((role) => {
    const up = role !== 'standby';
    app.runner.serialize(`site links ${up ? 'up' : 'down'}`, async () => {
      if (up) await app.kernel.bringUpSiteLinks?.(app.store.siteLinks.list());
      else await app.kernel.takeDownSiteLinks?.();
    }).catch((err: unknown) => app.log.error('site links could not follow the pair\'s role', { role, error: err instanceof Error ? err.message : String(err) }));
  });
}
