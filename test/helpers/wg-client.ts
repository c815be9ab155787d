// A WireGuard client in its own namespace, linked to the router by veth, running
// wireguard-go with the .conf the API handed out (stripped, through `wg setconf`).
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { stripConf } from '../../src/wg/conf';
import { linkNamespaces, Netns } from './netns';
import { tempDir } from './daemon';

const runAsync = promisify(execFile);
const PROBE = path.join(__dirname, 'tcp-probe.js');

/** Answer of a TCP server reached from `ns`, or null when nothing answered within `timeoutMs`. */
export async function reach(ns: Netns, host: string, port: number, timeoutMs = 1500): Promise<string | null> {
  try {
    const { stdout } = await runAsync('ip', ['netns', 'exec', ns.name, process.execPath, PROBE, 'connect', host, String(port), String(timeoutMs)]);
    return stdout;
  } catch {
    return null;
  }
}

/**
 * What `target` answers from `ns` (null: nothing) in a window in which `control`, over the
 * same path, is reached: a null from reach() alone could be a slow path, a connection made
 * over it in the same time says the target would have answered by then. Throws when the
 * control is never reached, since then nothing can be told.
 */
export async function reachBeside(ns: Netns, target: [string, number], control: [string, number]): Promise<string | null> {
  for (let i = 0; i < 4; i++) {
    const [got, beside] = await Promise.all([reach(ns, ...target), reach(ns, ...control)]);
    if (beside !== null) return got;
  }
  throw new Error(`the control ${control.join(':')} was never reached from ${ns.name}: cannot tell whether ${target.join(':')} is closed`);
}

/** Like reach(), but a few tries: the first packet waits for a WireGuard handshake. */
export async function reachSoon(ns: Netns, host: string, port: number): Promise<string | null> {
  for (let i = 0; i < 4; i++) {
    const got = await reach(ns, host, port, 2000);
    if (got !== null) return got;
  }
  return null;
}

/** Starts the TCP answer server in `ns` and waits until it listens. */
export function serveTcp(ns: Netns, port: number, label: string): Promise<void> {
  const child = ns.spawn(process.execPath, [PROBE, 'serve', String(port), label]);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`tcp server ${label} exited with ${code}`)));
  });
}

export class WgClient {
  readonly ns: Netns;
  readonly ifname = `wgc${crypto.randomBytes(3).toString('hex')}`;
  private started = false;

  /** `index` picks the veth subnet 172.16.<index>.0/24 between router and client. */
  constructor(label: string, router: Netns, readonly index: number, endpointIp: string) {
    this.ns = new Netns(label);
    linkNamespaces(router, `172.16.${index}.1/24`, this.ns, `172.16.${index}.2/24`);
    this.ns.exec('ip', ['route', 'add', `${endpointIp}/32`, 'via', `172.16.${index}.1`]);
  }

  /** Loads the .conf (as the API gave it) and routes `routes` through the tunnel. */
  async up(conf: string, routes: string[]): Promise<void> {
    if (!this.started) {
      const child = spawn('ip', ['netns', 'exec', this.ns.name, 'wireguard-go', '-f', this.ifname], {
        env: { ...process.env, WG_PROCESS_FOREGROUND: '1' }, stdio: 'ignore',
      });
      child.unref();
      const deadline = Date.now() + 5000;
      while (!fs.existsSync(`/run/wireguard/${this.ifname}.sock`)) {
        if (Date.now() > deadline) throw new Error('client wireguard-go did not start');
        await new Promise((r) => setTimeout(r, 20));
      }
      this.started = true;
    }
    // Every address of the Address line: an IPv4 /32 and, on a dual-stack server, an IPv6 /128.
    const addresses = /^Address = (.+)$/m.exec(conf)![1].split(',').map((x) => x.trim());
    const file = path.join(tempDir('wgcp-client-'), 'peer.conf');
    fs.writeFileSync(file, stripConf(conf), { mode: 0o600 });
    this.ns.exec('wg', ['setconf', this.ifname, file]);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    this.ns.exec('ip', ['address', 'flush', 'dev', this.ifname]);
    for (const address of addresses) this.ns.exec('ip', ['address', 'add', address, 'dev', this.ifname]);
    this.ns.exec('ip', ['link', 'set', this.ifname, 'up']);
    for (const r of routes) this.ns.exec('ip', ['route', 'replace', r, 'dev', this.ifname]);
  }

  /** Makes the client send everything into the tunnel, whatever its .conf allowed (a client that does not behave). */
  forceFullTunnel(serverKey: string): void {
    this.ns.exec('wg', ['set', this.ifname, 'peer', serverKey, 'allowed-ips', '0.0.0.0/0']);
  }

  destroy(): void {
    this.ns.destroy();
  }
}
