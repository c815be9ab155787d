// The guest's world for the real-kernel checks (test/vm/real-kernel.ts): the guest itself is
// the router (its own root network namespace, its own kernel), wgcpd runs there as a child
// process with its kernel on, clients are namespaces linked by veth that use the kernel's
// WireGuard too, and a WAN host sits behind another veth. Reachability is told with `ping`
// (no Node start per probe: under TCG a Node start costs seconds).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { stripConf } from '../../src/wg/conf';
import { generateKeyPair, generatePresharedKey } from '../../src/wg/keys';
import { tempDir } from '../helpers/daemon';
import { linkNamespaces, Netns, sh } from '../helpers/netns';

const MAIN = path.join(__dirname, '../../src/main.js');
export const CLI = path.join(__dirname, '../../src/cli/main.js');
export const ENDPOINT_IP = '192.0.2.1';
export const WAN6 = '2001:db8:ff::1';
export const INTERNET = '198.51.100.2';
export const INTERNET6 = '2001:db8:ff::2';

/** The guest's own (root) network namespace under a name, for helpers that take a Netns. */
export function rootNamespace(): Netns {
  sh('ip', ['netns', 'attach', 'wgcpvm-router', '1']);
  const router = Object.create(Netns.prototype) as Netns;
  Object.assign(router, { name: 'wgcpvm-router', children: [] });
  return router;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

export interface VmDaemon {
  dataDir: string;
  child: ChildProcess;
  startMs: number;
  output(): string;
  api(method: string, pathname: string, body?: unknown): Promise<{ status: number; text: string; json: any }>;
  /** SIGTERM; resolves with the exit code and how long it took. */
  stop(): Promise<{ code: number | null; signal: string | null; ms: number }>;
}

/** Starts wgcpd (its kernel on) and resolves once /healthz answers, with how long that took from the spawn. */
export async function startVmDaemon(dataDir = tempDir('wgcp-vm-')): Promise<VmDaemon> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, WGCP_DATA_DIR: dataDir, WGCP_LISTEN: `127.0.0.1:${port}`, WGCP_KERNEL: 'on', WGCP_LOG_LEVEL: 'info', WGCP_USAGE_INTERVAL_S: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wgcpd exited with ${child.exitCode} before it was ready:\n${out}`);
    const ok = await fetch(`${base}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const startMs = performance.now() - t0;
  const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  return {
    dataDir, child, startMs,
    output: () => out,
    // A connection a request (no keep-alive): under TCG the seconds between two calls outlast
    // the server's keep-alive, and a reused socket may be closed under the next request.
    api: (method, pathname, body) => new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(base + pathname, {
        method, agent: false,
        headers: { 'wg-control-key': key, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => { text += d; });
        res.on('end', () => {
          let json: unknown;
          try { json = JSON.parse(text); } catch { json = undefined; }
          resolve({ status: res.statusCode!, text, json });
        });
      });
      req.once('error', reject);
      req.end(data);
    }),
    async stop() {
      const t1 = performance.now();
      child.kill('SIGTERM');
      const { code, signal } = await exited;
      return { code, signal, ms: performance.now() - t1 };
    },
  };
}

/** A WireGuard client in its own namespace on the kernel's module (not wireguard-go). */
export class KernelClient {
  readonly ns: Netns;
  readonly ifname: string;

  constructor(label: string, router: Netns, index: number) {
    this.ns = new Netns(label);
    this.ifname = `wgk${index}`;
    linkNamespaces(router, `172.16.${index}.1/24`, this.ns, `172.16.${index}.2/24`);
    this.ns.exec('ip', ['route', 'add', `${ENDPOINT_IP}/32`, 'via', `172.16.${index}.1`]);
    this.ns.exec('ip', ['link', 'add', this.ifname, 'type', 'wireguard']);
  }

  /** Loads the .conf the API handed out and routes `routes` into the tunnel. */
  up(conf: string, routes: string[]): void {
    const addresses = /^Address = (.+)$/m.exec(conf)![1].split(',').map((x) => x.trim());
    const file = path.join(tempDir('wgcp-client-'), 'peer.conf');
    fs.writeFileSync(file, stripConf(conf), { mode: 0o600 });
    this.ns.exec('wg', ['setconf', this.ifname, file]);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    for (const address of addresses) this.ns.exec('ip', ['address', 'add', address, 'dev', this.ifname]);
    this.ns.exec('ip', ['link', 'set', this.ifname, 'up']);
    for (const r of routes) this.ns.exec('ip', ['route', 'replace', r, 'dev', this.ifname]);
  }
}

/** One ping from `ns` (a second to answer): true when it was answered. */
export function pings(ns: Netns, address: string): boolean {
  try {
    ns.exec('ping', ['-n', '-q', '-c', '1', '-W', '1', address]);
    return true;
  } catch {
    return false;
  }
}

/** Pings until one is answered (the first waits for a handshake), at most `tries`. */
export function pingsSoon(ns: Netns, address: string, tries = 5): boolean {
  for (let i = 0; i < tries; i++) if (pings(ns, address)) return true;
  return false;
}

/**
 * Whether `target` answers from `ns` in a window in which `control`, over the same tunnel,
 * does: a lost ping alone could be a slow path. Throws when the control never answers.
 */
export function pingsBeside(ns: Netns, target: string, control: string): boolean {
  for (let i = 0; i < 4; i++) {
    const got = pings(ns, target);
    if (pings(ns, control)) return got;
  }
  throw new Error(`the control ${control} never answered from ${ns.name}: cannot tell whether ${target} is closed`);
}

/** The WAN host: a namespace behind a veth, both families, the router's default route. */
export function wanHost(router: Netns): { internet: Netns; wanIf: string } {
  const internet = new Netns('vmwan');
  const { aIf, bIf } = linkNamespaces(router, '198.51.100.1/24', internet, `${INTERNET}/24`);
  router.exec('ip', ['address', 'add', `${WAN6}/64`, 'dev', aIf, 'nodad']);
  internet.exec('ip', ['address', 'add', `${INTERNET6}/64`, 'dev', bIf, 'nodad']);
  router.exec('ip', ['route', 'add', 'default', 'via', INTERNET]);
  router.exec('ip', ['-6', 'route', 'add', 'default', 'via', INTERNET6]);
  return { internet, wanIf: aIf };
}

/**
 * The other end of a site link (docs/site-to-site.md): a bare kernel WireGuard device in its
 * own namespace behind a veth, standing in for router A (`ip link add type wireguard`, no
 * wgcpd), at 10.88.0.1 on the tunnel and listening at `endpoint`. `linkBody` is what
 * `wgcp join` would post to this router's /api/site-links for it.
 */
export function sitePeer(router: Netns, index: number): { ns: Netns; endpoint: string; linkBody: Record<string, unknown>; accept(linkPublicKey: string): void } {
  const ns = new Netns('vmhq');
  linkNamespaces(router, `172.16.${index}.1/24`, ns, `172.16.${index}.2/24`);
  const own = generateKeyPair();
  const theirs = generateKeyPair();
  const psk = generatePresharedKey();
  const dir = tempDir('wgcp-hq-');
  fs.writeFileSync(path.join(dir, 'key'), own.privateKey, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'psk'), psk, { mode: 0o600 });
  ns.exec('ip', ['link', 'add', 'wghq', 'type', 'wireguard']);
  ns.exec('wg', ['set', 'wghq', 'private-key', path.join(dir, 'key'), 'listen-port', '51820']);
  ns.exec('ip', ['address', 'add', '10.88.0.1/24', 'dev', 'wghq']);
  ns.exec('ip', ['link', 'set', 'wghq', 'up']);
  const endpoint = `172.16.${index}.2:51820`;
  return {
    ns, endpoint,
    linkBody: { name: 'hq', privateKey: theirs.privateKey, address: '10.88.0.2', address6: null, peerPublicKey: own.publicKey, presharedKey: psk, endpoint, routes: ['10.88.0.0/24'] },
    accept(linkPublicKey) {
      ns.exec('wg', ['set', 'wghq', 'peer', linkPublicKey, 'preshared-key', path.join(dir, 'psk'), 'allowed-ips', '10.88.0.2/32']);
    },
  };
}
