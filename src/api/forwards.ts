// Port forwards of a device: list, add, remove. Each change is one kernel apply (a DNAT
// element in forward mode) inside the transaction that stores it.
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import { parseId } from './fields';
import { findDevice } from './devices';
import { presentForward } from './devices-present';
import { checkListenPort, parseForwardInput } from './forwards-input';

export function forwardRoutes(app: App): Route[] {
  const { store, kernel } = app;
  return [
    {
      method: 'GET', path: '/api/devices/:id/forwards', auth: 'control',
      handler: (ctx) => ok(store.forwards.listByDevice(findDevice(app, ctx.params.id).deviceId).map(presentForward)),
    },
    {
      method: 'POST', path: '/api/devices/:id/forwards', auth: 'control',
      async handler(ctx) {
        const device = findDevice(app, ctx.params.id);
        const input = parseForwardInput(await ctx.body());
        const forward = store.tx(() => {
          if (!store.devices.get(device.deviceId)) throw createError(404, 'device not found');
          checkListenPort(app, input);
          const rec = store.forwards.insert({ deviceId: device.deviceId, ...input, createdAt: app.now().toISOString() });
          kernel.applyForward({ server: store.servers.get(device.serverId)!, before: null, after: store.forwards.kernelForward(rec.id)! });
          return rec;
        });
        return created(presentForward(forward));
      },
    },
    {
      method: 'DELETE', path: '/api/forwards/:id', auth: 'control',
      handler(ctx) {
        const id = parseId(ctx.params.id, 'forward');
        store.tx(() => {
          const before = store.forwards.kernelForward(id);
          if (!before) throw createError(404, 'forward not found');
          store.forwards.delete(id);
          kernel.applyForward({ server: store.servers.get(before.serverId)!, before, after: null });
        });
        return noContent();
      },
    },
  ];
}
