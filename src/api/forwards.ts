// Port forwards of a device: list, add, remove: HTTP to the forward operations and back.
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import { addForward, removeForward } from '../ops/forwards';
import { presentForward } from '../views/devices-present';
import { parseId } from './fields';
import { parseForwardInput } from './forwards-input';
import { deviceFromPath } from './lookups';

/** A device is named by its id in routes (its peer's), never by its device_id. */
const DEVICE_ID = { id: { description: "the device's id (its peer's id), never its device_id" } };

export function forwardRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/devices/:id/forwards', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'List port forwards of a device', params: DEVICE_ID, answers: { 200: { description: 'forwards', shape: ['PortForward'] } }, errors: [404] }),
      handler(ctx) {
        const device = deviceFromPath(app, ctx.params.id);
        return ok(app.store.forwards.listByDevice(device.deviceId).map((f) => presentForward(f, device)));
      },
    },
    {
      method: 'POST', path: '/api/devices/:id/forwards', auth: 'control', role: 'operator',
      doc: () => ({ summary: 'Add a port forward (DNAT in forward mode)', params: DEVICE_ID, body: 'PortForward', answers: { 201: { description: 'created', shape: 'PortForward' } }, errors: [400, 404, 413] }),
      async handler(ctx) {
        const device = deviceFromPath(app, ctx.params.id);
        const input = parseForwardInput(await ctx.body());
        return created(presentForward(await addForward(app, device.deviceId, input, { actor: ctx.actor }), device));
      },
    },
    {
      method: 'DELETE', path: '/api/forwards/:id', auth: 'control', role: 'operator',
      doc: () => ({ summary: 'Remove a port forward', answers: { 204: { description: 'removed' } }, errors: [404] }),
      async handler(ctx) {
        await removeForward(app, parseId(ctx.params.id, 'forward'), { actor: ctx.actor });
        return noContent();
      },
    },
  ];
}
