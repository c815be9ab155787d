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

/** A device is named by its id in routes (its peer's), never by its device_id. */
const DEVICE_ID = { id: { description: "the device's id (its peer's id), never its device_id" } };

const reader = (ctx: RequestContext) => ctx.actor?.role ?? null;

export function deviceRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/devices', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'List devices', answers: { 200: { description: 'devices', shape: ['Device'] } } }),
      handler: (ctx) => ok(listDevices(app).map((d) => showDevice(app, d, reader(ctx)))),
    },
    {
      method: 'GET', path: '/api/devices/:id', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Read a device', params: DEVICE_ID, answers: { 200: { description: 'the device', shape: 'Device' } }, errors: [404] }),
      handler: (ctx) => ok(showDevice(app, deviceFromPath(app, ctx.params.id), reader(ctx))),
    },
    {
      method: 'PUT', path: '/api/devices/:id', auth: 'control', role: 'operator',
      doc: () => ({ summary: 'Suspend or reinstate a device', params: DEVICE_ID, body: 'DeviceUpdate', answers: { 200: { description: 'updated', shape: 'Device' } }, errors: [400, 404, 413] }),
      async handler(ctx) {
        const id = deviceFromPath(app, ctx.params.id).deviceId;
        const suspended = required(readBool(await ctx.body(), 'suspended'), 'suspended');
        return ok(showDevice(app, await setDeviceSuspended(app, id, suspended, { actor: ctx.actor }), reader(ctx)));
      },
    },
    {
      method: 'DELETE', path: '/api/devices/:id', auth: 'control', role: PEER_DELETE_ROLE,
      doc: () => ({ summary: 'Delete a device and its peer', params: DEVICE_ID, answers: { 204: { description: 'deleted' } }, errors: [404, [403, 'below admin: removing a device deletes its peer']] }),
      async handler(ctx) {
        await deleteDevice(app, deviceFromPath(app, ctx.params.id).deviceId, { actor: ctx.actor });
        return noContent();
      },
    },
    {
      method: 'POST', path: '/api/devices/:id/rotate', auth: 'control', role: 'operator',
      doc: () => ({ summary: "Give the device's peer new keys (the device gets them at its next heartbeat)", params: DEVICE_ID, answers: { 200: { description: 'the device', shape: 'Device' } }, errors: [404] }),
      handler: async (ctx) => ok(showDevice(app, await rotateDeviceKeys(app, deviceFromPath(app, ctx.params.id).deviceId, { actor: ctx.actor }), reader(ctx))),
    },
  ];
}
