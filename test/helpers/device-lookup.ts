// A test knows a device by the device_id its payload carried; the control plane names it by
// its id (its peer's) and shows the device_id, as `uuid`, to admins alone. An admin's list
// ties the two.
export interface DeviceView { id: number; uuid: string; uuidPrefix: string; peerID: number; serverID: number; [field: string]: unknown }

export async function deviceByUuid(get: (path: string) => Promise<{ json: unknown }>, uuid: string): Promise<DeviceView> {
  const list = (await get('/api/devices')).json as DeviceView[];
  const device = list.find((d) => d.uuid === uuid);
  if (!device) throw new Error(`no device with device_id ${uuid.slice(0, 8)}… in the admin's list`);
  return device;
}
