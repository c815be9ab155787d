// Port forwards of a device: list, add, remove: HTTP to the forward operations and back.
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import { getDevice } from '../ops/devices';
import { addForward, removeForward } from '../ops/forwards';
import { presentForward } from '../views/devices-present';
import { parseId } from './fields';
import { parseForwardInput } from './forwards-input';

export function forwardRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/devices/:id/forwards', auth: 'control',
      handler: (ctx) => ok(app.store.forwards.listByDevice(getDevice(app, ctx.params.id).deviceId).map(presentForward)),
    },
    {
      method: 'POST', path: '/api/devices/:id/forwards', auth: 'control',
      async handler(ctx) {
        const deviceId = getDevice(app, ctx.params.id).deviceId;
        const input = parseForwardInput(await ctx.body());
        return created(presentForward(await addForward(app, deviceId, input, { actor: ctx.actor })));
      },
    },
    {
      method: 'DELETE', path: '/api/forwards/:id', auth: 'control',
      async handler(ctx) {
        await removeForward(app, parseId(ctx.params.id, 'forward'), { actor: ctx.actor });
        return noContent();
      },
    },
  ];
}
