// The resource a path names, or 404: path text to an id, then the operation's read.
import type { App } from '../app';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { getPeer } from '../ops/peers';
import { getServer } from '../ops/servers';
import { getDevice } from '../ops/devices';
import type { DeviceRecord } from '../store/devices';
import { parseId } from './fields';

export const serverFromPath = (app: App, idText: string): ServerRecord => getServer(app, parseId(idText, 'server'));
export const peerFromPath = (app: App, idText: string): PeerRecord => getPeer(app, parseId(idText, 'peer'));
/** `{id}` of a device route: the device's id (its peer's), never its device_id. */
export const deviceFromPath = (app: App, idText: string): DeviceRecord => getDevice(app, parseId(idText, 'device'));
