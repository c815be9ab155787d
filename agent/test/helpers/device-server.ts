// A small stand-in for the daemon's device API (provision and heartbeat), written from the
// contract with node:crypto, so the agent's @peculiar/webcrypto side is checked against an
// independent implementation. The real daemon is exercised by the root agent-e2e suites.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DeviceRecord { hwid: string; config: Record<string, string>; suspended: boolean; forwards: string }

export function sealWithNode(hwid: string, salt: string, plaintext: string): string {
  const key = crypto.createHash('sha256').update(hwid + salt, 'utf8').digest();
  const nonce = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

export function openWithNode(hwid: string, salt: string, sealed: string): string {
  const key = crypto.createHash('sha256').update(hwid + salt, 'utf8').digest();
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
}

const hexKey = () => crypto.randomBytes(32).toString('hex');

export function samplePayload(deviceId: string = crypto.randomUUID()): Record<string, string> {
  return {
    device_id: deviceId, private_key: hexKey(), preshared_key: hexKey(), internal_ip: '10.66.0.2',
    server_pub: hexKey(), endpoint: '127.0.0.1:51999', dns: '10.66.0.1', allowed_ips: '10.66.0.0/24', server_wg_ip: '10.66.0.1',
  };
}

export class DeviceServer {
  readonly salt = crypto.randomBytes(16).toString('hex');
  readonly tokens = new Map<string, { used: boolean }>();
  readonly devices = new Map<string, DeviceRecord>();
  readonly heartbeats: Record<string, unknown>[] = [];
  provisionCalls = 0;
  /** Answer this many of the next requests with 500. */
  failNext = 0;
  /** Answer this many of the next heartbeats with 429 and this Retry-After (the router's throttle). */
  throttleNext = 0;
  throttleRetryAfterS = 1;
  /** Extra fields added to every heartbeat answer (unknown to the agent). */
  extraAnswerFields: Record<string, unknown> = {};
  /** While set, a heartbeat carrying `networks` is refused as wgcpd refuses a set its rules forbid. */
  refuseNetworks: string | null = null;
  private server = http.createServer((req, res) => this.handle(req, res));
  url = '';

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  addToken(): string {
    const token = crypto.randomUUID();
    this.tokens.set(token, { used: false });
    return token;
  }

  device(id: string): DeviceRecord {
    const d = this.devices.get(id);
    if (!d) throw new Error(`no device ${id}`);
    return d;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let text = '';
    req.on('data', (c) => { text += c; });
    req.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => { res.writeHead(status, { 'content-type': 'application/json', ...headers }); res.end(JSON.stringify(body)); };
      if (this.failNext > 0) { this.failNext--; return send(500, { error: 'provisioning failed' }); }
      let body: any;
      try { body = JSON.parse(text); } catch { return send(400, { error: 'invalid json' }); }
      if (req.url === '/api/v1/provision') return this.provision(body, send);
      if (req.url === '/api/v1/heartbeat') return this.heartbeat(body, send);
      send(404, { error: 'not found' });
    });
  }

  private provision(body: any, send: (s: number, b: unknown) => void): void {
    this.provisionCalls++;
    const entry = this.tokens.get(body.token);
    if (!entry) return send(403, { error: 'invalid token' });
    if (entry.used) return send(400, { error: 'token already used' });
    if (typeof body.hwid !== 'string' || !body.hwid) return send(400, { error: 'invalid hardware id' });
    entry.used = true;
    const known = [...this.devices.entries()].find(([, d]) => d.hwid === body.hwid);
    const config = samplePayload(known?.[0]);
    this.devices.set(config.device_id, { hwid: body.hwid, config, suspended: false, forwards: '[]' });
    send(200, { encrypted_config: sealWithNode(body.hwid, this.salt, JSON.stringify(config)) });
  }

  private heartbeat(body: any, send: (s: number, b: unknown, h?: Record<string, string>) => void): void {
    const d = this.devices.get(body.device_id);
    if (!d) return send(404, { error: 'device not found' });
    if (this.throttleNext > 0) {
      this.throttleNext--;
      return send(429, { error: 'too many device requests; try again later' }, { 'retry-after': String(this.throttleRetryAfterS) });
    }
    this.heartbeats.push(body);
    if (d.suspended) return send(403, { error: 'device is suspended' });
    if (body.networks !== undefined && this.refuseNetworks !== null) {
      return send(400, { error: `networks refused: ${this.refuseNetworks}`, code: 'WGCP_DEVICE_NETWORKS_REFUSED', field: 'networks' });
    }
    const forwards_hash = crypto.createHash('sha256').update(d.forwards).digest('hex');
    const { device_id, ...fields } = d.config;
    send(200, { device_id, status: 'ok', ...fields, forwards_hash, ...this.extraAnswerFields });
  }
}
