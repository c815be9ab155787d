// What leaves the daemon in events (webhooks, the live stream) names a device by the prefix
// of its device_id, never the whole: the whole id is a credential. Devices are presented
// to events without it (views/devices-present); this is the second guard: a string
// `device.uuid` or `device.id` becomes `uuidPrefix` or `idPrefix`, any string `deviceID`
// field `deviceIDPrefix`. Admins read whole ids from GET /api/devices.
import { deviceIdPrefix } from '../device/identifiers';

type Json = unknown;

function redact(value: Json, underDevice: boolean): Json {
  if (Array.isArray(value)) return value.map((v) => redact(v, false));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value as Record<string, Json>)) {
    if (underDevice && (k === 'id' || k === 'uuid') && typeof v === 'string') out[`${k}Prefix`] = deviceIdPrefix(v);
    else if ((k === 'deviceID' || k === 'deviceId' || k === 'device_id') && typeof v === 'string') out[`${k}Prefix`] = deviceIdPrefix(v);
    else out[k] = redact(v, k === 'device');
  }
  return out;
}

/** A copy of event data with every device_id shortened to its prefix. */
export function withDeviceIdPrefixes(data: Record<string, unknown>): Record<string, unknown> {
  return redact(data, false) as Record<string, unknown>;
}
