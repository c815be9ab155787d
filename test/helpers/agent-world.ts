// The agent end to end: wgcpd (WGCP_KERNEL=on, device API over HTTPS) in a router
// namespace, and the built agent bundle in a device namespace linked to it by veth.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './daemon';
import { linkNamespaces, Netns } from './netns';
import { startNsDaemon, type NsDaemon } from './ns-daemon';

export const AGENT_BUNDLE = path.join(__dirname, '..', '..', '..', 'agent', 'dist', 'wgcp-agent.js');

export interface AgentWorld {
  router: Netns;
  device: Netns;
  daemon: NsDaemon;
  routerIp: string;
  /** The device's end of the veth to the router (its "WAN"). */
  deviceLink: string;
  salt: string;
  dataDir: string;
  certFile: string;
  keyFile: string;
  serverId: number;
  serverWgIp: string;
  daemonEnv: Record<string, string>;
  destroy(): Promise<void>;
}

/** Router and device namespaces, a daemon with an HTTPS device listener and one forward-mode server. */
export async function startAgentWorld(label: string): Promise<AgentWorld> {
  if (!fs.existsSync(AGENT_BUNDLE)) throw new Error(`${AGENT_BUNDLE} is missing: run npm --prefix agent run build`);
  const router = new Netns(`${label}r`);
  const device = new Netns(`${label}d`);
  const routerIp = '203.0.113.1';
  const { bIf: deviceLink } = linkNamespaces(router, `${routerIp}/24`, device, '203.0.113.2/24');
  const certDir = tempDir('wgcp-agent-tls-');
  const certFile = path.join(certDir, 'cert.pem');
  const keyFile = path.join(certDir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', `/CN=${routerIp}`, '-addext', `subjectAltName=IP:${routerIp}`, '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  const salt = crypto.randomBytes(16).toString('hex');
  const dataDir = tempDir('wgcp-agent-daemon-');
  const daemonEnv = { SERVER_SALT: salt, WGCP_DEVICE_LISTEN: `${routerIp}:8443`, WGCP_TLS_CERT: certFile, WGCP_TLS_KEY: keyFile };
  const daemon = await startNsDaemon(router, { dataDir, env: daemonEnv });
  const server = await daemon.api('POST', '/api/servers', { name: 'field', endpoint: `${routerIp}:51820`, mode: 'forward', address: '10.88.0.1/24' });
  if (server.status !== 201) throw new Error(`cannot create a server: ${server.text}`);
  const world: AgentWorld = {
    router, device, daemon, routerIp, deviceLink, salt, dataDir, certFile, keyFile, serverId: server.json.id, serverWgIp: '10.88.0.1', daemonEnv,
    async destroy() {
      await world.daemon.stop().catch(() => null);
      device.destroy();
      router.destroy();
    },
  };
  return world;
}

export async function newToken(w: AgentWorld): Promise<string> {
  const res = await w.daemon.api('POST', `/api/servers/${w.serverId}/tokens`);
  if (res.status !== 201) throw new Error(`cannot make a token: ${res.text}`);
  return res.json.token;
}

/** One agent installation in the device namespace: its config file and state folder. */
export class AgentInstall {
  readonly dir = tempDir('wgcp-agent-dev-');
  readonly configFile = path.join(this.dir, 'agent.json');
  readonly stateDir = path.join(this.dir, 'state');
  readonly ifname = `wga${crypto.randomBytes(3).toString('hex')}`;
  child: ChildProcess | null = null;
  output = '';

  /** `node` is the command that runs the bundle: this Node, or arm64 Node under qemu-aarch64. */
  constructor(readonly w: AgentWorld, readonly node: string[] = [process.execPath]) {}

  writeConfig(token: string, extra: Record<string, unknown> = {}): void {
    fs.writeFileSync(this.configFile, JSON.stringify({
      server_url: `https://${this.w.routerIp}:8443`, token, server_salt: this.w.salt, hwid: `e2e-${path.basename(this.dir)}`,
      ca_file: this.w.certFile, interface: this.ifname, state_dir: this.stateDir, heartbeat_interval_s: 1, ...extra,
    }), { mode: 0o600 });
  }

  start(): void {
    this.output = '';
    const child = spawn('ip', ['netns', 'exec', this.w.device.name, ...this.node, AGENT_BUNDLE, 'run', '--config', this.configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => { this.output += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { this.output += d.toString(); });
    this.child = child;
  }

  /** Stops the agent (SIGTERM waits for a clean exit; SIGKILL is a power cut). */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    // `ip netns exec` execs the command, so the child pid is the agent itself.
    child.kill(signal);
    await exited;
  }

  status(): { running: boolean; state: string; display: string; device_id: string | null; last_heartbeat: string | null } {
    const r = spawnSync(process.execPath, [AGENT_BUNDLE, 'status', '--config', this.configFile], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`status failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  }

  logs(): Record<string, unknown>[] {
    return this.output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  }

  async waitFor(cond: () => boolean, what: string, ms = 30_000): Promise<void> {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; agent output:\n${this.output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Waits until status says connected (a heartbeat answered with a handshaken tunnel), then
   * lets the agent's output written meanwhile reach `output` (status() blocks the event loop).
   */
  async waitConnected(ms = 30_000): Promise<void> {
    await this.waitFor(() => this.status().display === 'connected', 'display connected', ms);
    await new Promise((r) => setTimeout(r, 300));
  }

  ping(ip: string): boolean {
    try { this.w.device.exec('ping', ['-c', '1', '-W', '2', ip]); return true; } catch { return false; }
  }

  /** Ping with patience: after the router restarts, WireGuard needs a new handshake (up to ~20 s). */
  async pingSoon(ip: string, ms = 40_000): Promise<boolean> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (this.ping(ip)) return true;
      await new Promise((r) => setTimeout(r, 500));
    }
    return false;
  }
}
