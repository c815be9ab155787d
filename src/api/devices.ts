// Admin routes for devices: list, read, suspend or reinstate, delete (with its peer), and
// key rotation: HTTP to the device operations and back. `{id}` is the device's id (its
// peer's); the device_id is a credential, shown whole to admins alone (views/devices-present).
import type { App } from '../app';
import type { Route, RequestContext } from '../http/router';
import { noContent, ok } from '../http/reply';
import { deleteDevice, listDevices, rotateDeviceKeys, setDeviceSuspended, showDevice } from '../ops/devices';
import { readBool, required } from './fields';
import { deviceFromPath } from './lookups';
import { PEER_DELETE_ROLE } from '../ops/deletion-rights';

const reader = (ctx: RequestContext) => ctx.actor?.role ?? null;

export function deviceRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/devices', auth: 'control', role: 'viewer',
      handler: (ctx) => ok(listDevices(app).map((d) => showDevice(app, d, reader(ctx)))),
    },
    {
      method: 'GET', path: '/api/devices/:id', auth: 'control', role: 'viewer',
      handler: (ctx) => ok(showDevice(app, deviceFromPath(app, ctx.params.id), reader(ctx))),
    },
    {
      method: 'PUT', path: '/api/devices/:id', auth: 'control', role: 'operator',
      async handler(ctx) {
        const id = deviceFromPath(app, ctx.params.id).deviceId;
        const suspended = required(readBool(await ctx.body(), 'suspended'), 'suspended');
        return ok(showDevice(app, await setDeviceSuspended(app, id, suspended, { actor: ctx.actor }), reader(ctx)));
      },
    },
    {
      method: 'DELETE', path: '/api/devices/:id', auth: 'control', role: PEER_DELETE_ROLE,
      async handler(ctx) {
        await deleteDevice(app, deviceFromPath(app, ctx.params.id).deviceId, { actor: ctx.actor });
        return noContent();
      },
    },
    {
      method: 'POST', path: '/api/devices/:id/rotate', auth: 'control', role: 'operator',
      handler: async (ctx) => ok(showDevice(app, await rotateDeviceKeys(app, deviceFromPath(app, ctx.params.id).deviceId, { actor: ctx.actor }), reader(ctx))),
    },
  ];
}
