// Port forward operations of a device: add and remove, each one kernel change (a DNAT
// element in forward mode) inside the transaction that stores it.
import createError from 'http-errors';
import type { App } from '../app';
import type { ForwardProtocol, ForwardRecord } from '../store/forwards';
import { checkListenPort } from './forward-rules';

export interface ForwardInput { protocol: ForwardProtocol; listenPort: number; targetPort: number }

export function addForward(app: App, deviceId: string, input: ForwardInput): ForwardRecord {
  const { store, kernel } = app;
  return store.tx(() => {
    const device = store.devices.get(deviceId);
    if (!device) throw createError(404, 'device not found');
    checkListenPort(app, input);
    const rec = store.forwards.insert({ deviceId, ...input, createdAt: app.now().toISOString() });
    kernel.applyForward({ server: store.servers.get(device.serverId)!, before: null, after: store.forwards.kernelForward(rec.id)! });
    return rec;
  });
}

export function removeForward(app: App, id: number): void {
  const { store, kernel } = app;
  store.tx(() => {
    const before = store.forwards.kernelForward(id);
    if (!before) throw createError(404, 'forward not found');
    store.forwards.delete(id);
    kernel.applyForward({ server: store.servers.get(before.serverId)!, before, after: null });
  });
}
