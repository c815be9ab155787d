// Admin routes for devices: list, read, suspend or reinstate, delete (with its peer), and
// key rotation: HTTP to the device operations and back.
import type { App } from '../app';
import type { Route } from '../http/router';
import { noContent, ok } from '../http/reply';
import { deleteDevice, getDevice, listDevices, rotateDeviceKeys, setDeviceSuspended, showDevice } from '../ops/devices';
import { readBool, required } from './fields';

export function deviceRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/devices', auth: 'control',
      handler: () => ok(listDevices(app).map((d) => showDevice(app, d))),
    },
    {
      method: 'GET', path: '/api/devices/:id', auth: 'control',
      handler: (ctx) => ok(showDevice(app, getDevice(app, ctx.params.id))),
    },
    {
      method: 'PUT', path: '/api/devices/:id', auth: 'control',
      async handler(ctx) {
        const id = getDevice(app, ctx.params.id).deviceId;
        const suspended = required(readBool(await ctx.body(), 'suspended'), 'suspended');
        return ok(showDevice(app, await setDeviceSuspended(app, id, suspended, { actor: ctx.actor })));
      },
    },
    {
      method: 'DELETE', path: '/api/devices/:id', auth: 'control',
      async handler(ctx) {
        await deleteDevice(app, getDevice(app, ctx.params.id).deviceId, { actor: ctx.actor });
        return noContent();
      },
    },
    {
      method: 'POST', path: '/api/devices/:id/rotate', auth: 'control',
      handler: async (ctx) => ok(showDevice(app, await rotateDeviceKeys(app, getDevice(app, ctx.params.id).deviceId, { actor: ctx.actor }))),
    },
  ];
}
