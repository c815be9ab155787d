// Port forwards of a device: list, add, remove: HTTP to the forward operations and back.
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import { addForward, removeForward } from '../ops/forwards';
import { presentForward } from '../views/devices-present';
import { parseId } from './fields';
import { parseForwardInput } from './forwards-input';
import { deviceFromPath } from './lookups';

export function forwardRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/devices/:id/forwards', auth: 'control', role: 'viewer',
      handler(ctx) {
        const device = deviceFromPath(app, ctx.params.id);
        return ok(app.store.forwards.listByDevice(device.deviceId).map((f) => presentForward(f, device)));
      },
    },
    {
      method: 'POST', path: '/api/devices/:id/forwards', auth: 'control', role: 'operator',
      async handler(ctx) {
        const device = deviceFromPath(app, ctx.params.id);
        const input = parseForwardInput(await ctx.body());
        return created(presentForward(await addForward(app, device.deviceId, input, { actor: ctx.actor }), device));
      },
    },
    {
      method: 'DELETE', path: '/api/forwards/:id', auth: 'control', role: 'operator',
      async handler(ctx) {
        await removeForward(app, parseId(ctx.params.id, 'forward'), { actor: ctx.actor });
        return noContent();
      },
    },
  ];
}
