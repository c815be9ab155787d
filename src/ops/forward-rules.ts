// Which router port a forward may take: none another forward, a WireGuard server (udp),
// wgcpd's own listeners or any other service of the router already holds.
import { apiError } from '../error-registry';
import type { App } from '../app';
import { routerServes } from '../kernel/listening-ports';
import { badField } from './field-error';
import type { ForwardInput } from './forwards';

/** Refuses a router port held by another forward, a WireGuard server (udp) or the daemon's own listeners (tcp). */
export function checkListenPort(app: Pick<App, 'store' | 'config'>, f: ForwardInput): void {
  const holder = app.store.forwards.holder(f.protocol, f.listenPort);
  if (holder !== undefined) throw badField('listenPort', `${f.protocol}/${f.listenPort} is already forwarded by forward ${holder}`);
  if (f.protocol === 'udp') {
    const server = app.store.servers.list().find((s) => s.listenPort === f.listenPort);
    if (server) throw badField('listenPort', `udp/${f.listenPort} is the WireGuard port of server ${server.id}`);
  } else {
    const own = [app.config.listen, app.config.deviceListen].filter((l) => l !== null && l.port === f.listenPort);
    if (own.length > 0) throw apiError('WGCP_FORWARD_PORT_OWN', { port: f.listenPort }, { field: 'listenPort' });
  }
  // SSH, DNS, the web UI...: a forward would take the port from the router's own service.
  if (routerServes(f.protocol, f.listenPort)) {
    throw apiError('WGCP_FORWARD_PORT_ROUTER', { protocol: f.protocol, port: f.listenPort }, { field: 'listenPort' });
  }
}
