// Shared by the device suites: a daemon with one server, tokens made through the API, and
// an independent decryption of encrypted_config in Python (`cryptography`'s AESGCM), so
// the wire format is proven by a second implementation and not only by our own decrypt.
import { execFileSync } from 'node:child_process';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { PYTHON3 } from './helpers/root';
import type { DaemonOptions } from '../src/daemon';
import { deviceByUuid, type DeviceView } from './helpers/device-lookup';

export const SALT = 'device-suite-salt-0123456789';

export interface DeviceFixture {
  d: TestDaemon;
  api: ReturnType<typeof client>;
  serverId: number;
  newToken(serverId?: number): Promise<string>;
  provision(token: string, hwid: string): ReturnType<typeof call>;
  heartbeat(body: unknown): ReturnType<typeof call>;
  /** The device whose device_id this is, as an admin reads it (its `id` names it in routes). */
  deviceOf(deviceId: string): Promise<DeviceView>;
}

export async function deviceFixture(opts: { env?: Record<string, string>; options?: DaemonOptions; mode?: 'forward' | 'standalone' } = {}): Promise<DeviceFixture> {
  const d = await startTestDaemon({ env: { SERVER_SALT: SALT, ...opts.env }, options: opts.options });
  const api = client(d);
  const server = await api.post('/api/servers', { name: 'fleet', endpoint: 'vpn.example.com:51820', mode: opts.mode ?? 'forward', address: '10.44.0.1/24' });
  if (server.status !== 201) throw new Error(`server create failed: ${server.text}`);
  // Methods read fx.d and fx.api at call time, so a suite may restart the daemon in place.
  const fx: DeviceFixture = {
    d,
    api,
    serverId: server.json.id,
    async newToken(serverId = server.json.id) {
      const r = await fx.api.post(`/api/servers/${serverId}/tokens`, undefined);
      if (r.status !== 201) throw new Error(`token create failed: ${r.status} ${r.text}`);
      return r.json.token as string;
    },
    provision: (token, hwid) => call(fx.d.url, 'POST', '/api/v1/provision', { token, hwid }),
    heartbeat: (body) => call(fx.d.url, 'POST', '/api/v1/heartbeat', body),
    deviceOf: (deviceId) => deviceByUuid((p) => fx.api.get(p), deviceId),
  };
  return fx;
}

const PY_DECRYPT = `
import base64, hashlib, json, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
req = json.load(sys.stdin)
raw = base64.b64decode(req["blob"], validate=True)
key = hashlib.sha256((req["hwid"] + req["salt"]).encode("utf-8")).digest()
plain = AESGCM(key).decrypt(raw[:12], raw[12:], None)
sys.stdout.write(json.dumps({"nonce_len": 12, "body_len": len(raw) - 12, "plain": plain.decode("utf-8")}))
`;

/** Decrypts encrypted_config with Python's cryptography; throws when the tag does not verify. */
export function pythonDecrypt(blob: string, hwid: string, salt: string = SALT): Record<string, unknown> {
  const out = execFileSync(PYTHON3, ['-c', PY_DECRYPT], { input: JSON.stringify({ blob, hwid, salt }), encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  return JSON.parse(JSON.parse(out).plain) as Record<string, unknown>;
}

export const HEX64 = /^[0-9a-f]{64}$/;
