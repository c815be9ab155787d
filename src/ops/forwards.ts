// Port forward operations of a device: add and remove, each one kernel change (a DNAT
// element in forward mode) planned for the change runner with the row that stores it.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { ForwardProtocol, ForwardRecord } from '../store/forwards';
import { checkListenPort } from './forward-rules';
import type { ChangeOptions } from './runner';

export interface ForwardInput { protocol: ForwardProtocol; listenPort: number; targetPort: number }

export function addForward(app: App, deviceId: string, input: ForwardInput, opts?: ChangeOptions): Promise<ForwardRecord> {
  return app.runner.run('forward.add', (store) => {
    const device = store.devices.get(deviceId);
    if (!device) throw apiError('WGCP_DEVICE_NOT_FOUND');
    checkListenPort({ ...app, store }, input);
    const server = store.servers.get(device.serverId)!;
    const peer = store.peers.get(device.peerId)!;
    const draft = { deviceId, ...input, createdAt: app.now().toISOString() };
    const id = store.forwards.nextId();
    const after = { id, serverId: server.id, protocol: input.protocol, listenPort: input.listenPort, targetIp: peer.ip, targetIp6: peer.ip6, targetPort: input.targetPort };
    return {
      kernel: [{ forward: { server, before: null, after } }],
      commit: ({ store }) => store.forwards.insert({ ...draft, id }),
    };
  }, opts);
}

export function removeForward(app: App, id: number, opts?: ChangeOptions): Promise<void> {
  return app.runner.run('forward.remove', (store) => {
    const before = store.forwards.kernelForward(id);
    if (!before) throw apiError('WGCP_FORWARD_NOT_FOUND');
    return {
      kernel: [{ forward: { server: store.servers.get(before.serverId)!, before, after: null } }],
      commit: ({ store }) => { store.forwards.delete(id); },
    };
  }, opts);
}
