// What the end-to-end bench does to wgcpd, all of it through the public API: grow a
// server's fleet of peers and devices, then time each kind of change and read in rounds.
import { decryptPayload, deviceKey } from '../src/device/payload-crypto';
import { SALT } from './scale-daemon';
import { Samples, type Client } from './scale-http';

/** One device in five is provisioned (a device is a peer too), the others are plain peers. */
export const DEVICE_EVERY = 5;

export type Figures = Record<string, Samples>;

/** The figures the bench records, in the order of its tables; the first block are changes. */
export const CHANGES = ['peer create', 'peer update', 'peer delete', 'server update', 'server update, whole answer', 'forward add', 'forward delete',
  'device provisioning', 'heartbeat after a change', 'heartbeat, kept answer'] as const;
export const READS = ['page of 1,000 peers', 'GET /api/stats', "a server's stats", 'server without its peers'] as const;

export class Fleet {
  /** Plain peers, with the allowInternet each has now. */
  readonly peers: number[] = [];
  private readonly internet = new Map<number, boolean>();
  readonly devices: string[] = [];
  private seq = 0;

  constructor(readonly serverId: number, private readonly client: () => Client) {}

  static async create(client: () => Client, name: string, address: string, iface: string, port: number): Promise<Fleet> {
    const s = await client().must('POST', '/api/servers', { name, endpoint: `vpn.example.com:${port}`, mode: 'forward', address, interface: iface, listenPort: port });
    return new Fleet(s.json.id, client);
  }

  get size(): number { return this.peers.length + this.devices.length; }

  /** A plain peer deleted outside the fleet's own steps (the /16 bench frees addresses by hand). */
  forget(id: number): void {
    const i = this.peers.indexOf(id);
    if (i >= 0) this.peers.splice(i, 1);
    this.internet.delete(id);
  }

  private pick(): number { return this.peers[Math.floor(Math.random() * this.peers.length)]; }

  /** A new plain peer; some name an earlier one in allowAccess, every other one has the internet. */
  async addPeer(): Promise<{ id: number; ip: string; ms: number }> {
    const i = ++this.seq;
    const body = { name: `peer-${i}`, allowInternet: i % 2 === 0, allowAccess: i % 10 === 3 && this.peers.length ? [this.pick()] : [] };
    const a = await this.client().must('POST', `/api/servers/${this.serverId}/peers`, body);
    this.peers.push(a.json.id);
    this.internet.set(a.json.id, body.allowInternet);
    return { id: a.json.id, ip: a.json.ip, ms: a.ms };
  }

  /** A device through a registration token and POST /api/v1/provision; ms is the provisioning alone. */
  async provision(hwid: string): Promise<{ deviceId: string; ms: number }> {
    const token = (await this.client().must('POST', `/api/servers/${this.serverId}/tokens`)).json.token;
    const a = await this.client().must('POST', '/api/v1/provision', { token, hwid }, false);
    const config = JSON.parse(decryptPayload(a.json.encrypted_config, deviceKey(hwid, SALT)));
    return { deviceId: config.device_id, ms: a.ms };
  }

  /** The id the device routes take (its peer's) for a device_id, from an admin's list (untimed). */
  async deviceNumber(deviceId: string): Promise<number> {
    const list = (await this.client().must('GET', '/api/devices')).json as { id: number; uuid: string }[];
    return list.find((d) => d.uuid === deviceId)!.id;
  }

  async addDevice(): Promise<void> {
    this.devices.push((await this.provision(`fleet-${++this.seq}`)).deviceId);
  }

  /** Grows the fleet to n peers, one device in DEVICE_EVERY; returns each create's time. */
  async growTo(n: number, onProgress: (size: number) => void = () => {}): Promise<Samples> {
    const creates = new Samples();
    while (this.size < n) {
      if ((this.size + 1) % DEVICE_EVERY === 0) await this.addDevice();
      else creates.add((await this.addPeer()).ms);
      if (this.size % 1000 === 0) onProgress(this.size);
    }
    return creates;
  }

  heartbeat(deviceId: string) {
    return this.client().must('POST', '/api/v1/heartbeat', {
      device_id: deviceId, status: 'connected', state: 'HEARTBEAT', tunnel_up: true, last_handshake: new Date().toISOString(),
    }, false);
  }

  /**
   * One round of every change, each leaving the fleet as it found it: a peer created, an old
   * one updated, the new one deleted; the server renamed; a forward added and removed; a
   * device provisioned (and removed, untimed); then heartbeats of `beats` devices, each the
   * first since the changes (the kept answers were dropped by them).
   */
  async changeRound(r: number, f: Figures, beats: number): Promise<void> {
    const c = this.client();
    const created = await c.must('POST', `/api/servers/${this.serverId}/peers`, { name: `round-${r}`, allowInternet: true, allowAccess: [this.pick()] });
    f['peer create'].add(created.ms);
    const old = this.pick();
    const internet = !this.internet.get(old);
    let target = this.pick();
    while (target === old) target = this.pick();
    f['peer update'].add((await c.must('PUT', `/api/peers/${old}`, { name: `updated-${r}`, allowInternet: internet, allowAccess: [target] })).ms);
    this.internet.set(old, internet);
    f['peer delete'].add((await c.must('DELETE', `/api/peers/${created.json.id}`)).ms);
    // The change as the dashboard makes it (?peers=none); with the contract's whole answer it is timed apart (wholeAnswerRounds).
    f['server update'].add((await c.must('PUT', `/api/servers/${this.serverId}?peers=none`, { name: `scale ${r}` })).ms);
    const device = this.devices[r % this.devices.length];
    const fw = await c.must('POST', `/api/devices/${await this.deviceNumber(device)}/forwards`, { protocol: 'tcp', listenPort: 40000 + (r % 20000), targetPort: 8080 });
    f['forward add'].add(fw.ms);
    f['forward delete'].add((await c.must('DELETE', `/api/forwards/${fw.json.id}`)).ms);
    const p = await this.provision(`round-${r}-${++this.seq}`);
    f['device provisioning'].add(p.ms);
    await c.must('DELETE', `/api/devices/${await this.deviceNumber(p.deviceId)}`);
    for (let b = 0; b < beats; b++) f['heartbeat after a change'].add((await this.heartbeat(this.devices[(r * beats + b) % this.devices.length])).ms);
  }

  /**
   * The server update with the contract's whole answer (every peer inlined: 4 MB at 10,000),
   * in rounds of its own after the others: its garbage is collected during whatever request
   * comes next, which once made a forward add after it look three times dearer at 65,532 peers.
   */
  async wholeAnswerRounds(rounds: number, f: Figures): Promise<void> {
    for (let r = 0; r < rounds; r++) {
      f['server update, whole answer'].add((await this.client().must('PUT', `/api/servers/${this.serverId}`, { name: `scale whole ${r}` })).ms);
    }
  }

  /** Heartbeats with nothing changed between them: the devices in turn, answered from kept answers after each device's first. */
  async heartbeats(count: number, into: Samples): Promise<void> {
    for (let i = 0; i < count; i++) into.add((await this.heartbeat(this.devices[i % this.devices.length])).ms);
  }

  async readRound(r: number, f: Figures): Promise<void> {
    const c = this.client();
    const offset = (r * 1000) % Math.max(1, this.size - 1000);
    const page = await c.must('GET', `/api/servers/${this.serverId}/peers?limit=1000&offset=${offset}`);
    if (!Array.isArray(page.json) || page.json.length !== Math.min(1000, this.size)) throw new Error(`a page held ${page.json?.length} peers`);
    f['page of 1,000 peers'].add(page.ms);
    f['GET /api/stats'].add((await c.must('GET', '/api/stats')).ms);
    f["a server's stats"].add((await c.must('GET', `/api/servers/${this.serverId}/stats`)).ms);
    f['server without its peers'].add((await c.must('GET', `/api/servers/${this.serverId}?peers=none`)).ms);
  }

  /** Steady churn for one step: a peer in, the oldest churned one out, an update, heartbeats. */
  async churnStep(queue: number[], beats: number, i: number): Promise<void> {
    const c = this.client();
    const created = await c.must('POST', `/api/servers/${this.serverId}/peers`, { name: `churn-${i}`, allowInternet: i % 2 === 0, allowAccess: [this.pick()] });
    queue.push(created.json.id);
    if (queue.length > 50) await c.must('DELETE', `/api/peers/${queue.shift()}`);
    await c.must('PUT', `/api/peers/${this.pick()}`, { name: `churned-${i}` });
    for (let b = 0; b < beats; b++) await this.heartbeat(this.devices[(i * beats + b) % this.devices.length]);
    if (i % 100 === 0) {
      const p = await this.provision(`churn-${i}-${++this.seq}`);
      await c.must('DELETE', `/api/devices/${await this.deviceNumber(p.deviceId)}`);
    }
  }
}

export function emptyFigures(names: readonly string[]): Figures {
  return Object.fromEntries(names.map((n) => [n, new Samples()]));
}
