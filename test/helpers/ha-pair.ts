// A standby pair on one machine: two router namespaces on a shared "WAN" bridge, a virtual
// address held by real keepalived (VRRP over the bridge), a LAN host behind both routers on a
// second bridge, a direct link between the routers for the pair's channel, and wireguard-go
// clients outside whose endpoint is the virtual address. keepalived's notify runs the
// shipped script (packaging/ha/wgcp-ha-notify), which runs `wgcp ha notify STATE`.
//
//   client ns 198.51.100.2 ── wan bridge ── a: wan 192.0.2.11 ─┐ sync 10.254.0.1/.2
//                                        └─ b: wan 192.0.2.12 ─┘
//   virtual 192.0.2.10 (on the primary)      a, b: lan 10.1.0.11/.12 ── lan bridge ── host 10.1.0.2
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { stripConf } from '../../src/wg/conf';
import { tempDir } from './daemon';
import { Netns, sh } from './netns';
import { startNsDaemon, type NsDaemon } from './ns-daemon';

export const VIRTUAL_ADDRESS = '192.0.2.10';
export const LAN_HOST = '10.1.0.2';
export const CLIENT_ADDRESS = '198.51.100.2';
/** Where each router serves the pair's channel, on the sync link. */
export const HA_PORT = 7443;
const CLIENTS_NET = '198.51.100.0/24';
const NOTIFY_SCRIPT = path.join(__dirname, '../../../packaging/ha/wgcp-ha-notify');
const EXAMPLE_CONF = path.join(__dirname, '../../../packaging/ha/keepalived-wgcp.conf.example');
const CLI = path.join(__dirname, '../../src/cli/main.js');

export type RouterName = 'a' | 'b';
const PLAN: Record<RouterName, { wan: string; lan: string; sync: string; priority: number }> = {
  a: { wan: '192.0.2.11', lan: '10.1.0.11', sync: '10.254.0.1', priority: 150 },
  b: { wan: '192.0.2.12', lan: '10.1.0.12', sync: '10.254.0.2', priority: 100 },
};
const other = (r: RouterName): RouterName => (r === 'a' ? 'b' : 'a');

export interface HaRouter {
  name: RouterName;
  ns: Netns;
  /** Its own data folder (kept across a kill and a return) and its keepalived's files. */
  dataDir: string;
  dir: string;
  daemon: NsDaemon | null;
  keepalived: ChildProcess | null;
  /** What keepalived logged, and each notify it ran (one line: its arguments). */
  keepalivedLog: string;
  notifies(): string[];
}

export interface HaClient { ifname: string; conf: string; publicKey(): string }

/** The pair's wgcpd environment for one router: the partner's channel, its own, the shared key. */
export function haEnv(r: HaRouter): Record<string, string> {
  return {
    WGCP_HA_PARTNER: `http://${PLAN[other(r.name)].sync}:${HA_PORT}`,
    WGCP_HA_LISTEN: `${PLAN[r.name].sync}:${HA_PORT}`,
    WGCP_HA_KEY_FILE: path.join(r.dir, 'ha-key'),
    WGCP_HA_VIRTUAL_ADDRESS: VIRTUAL_ADDRESS,
  };
}

/**
 * keepalived's configuration for one router: the shipped example
 * (packaging/ha/keepalived-wgcp.conf.example) with this world's names put in, each of which
 * must be found there once. Scripts run from a temporary folder, which script security
 * refuses, so that line goes.
 */
function keepalivedConf(r: HaRouter): string {
  let text = fs.readFileSync(EXAMPLE_CONF, 'utf8');
  const put = (from: RegExp, to: string) => {
    const found = text.match(new RegExp(from.source, 'gm'))?.length ?? 0;
    if (found !== 1) throw new Error(`the keepalived example holds ${from} ${found} times, not once`);
    text = text.replace(new RegExp(from.source, 'm'), to);
  };
  put(/^  router_id wgcp-a$/, `  router_id wgcp-${r.name}`);
  put(/^  enable_script_security\n/, '');
  put(/^  interface eth1$/, '  interface wan');
  put(/^  priority 150$/, `  priority ${PLAN[r.name].priority}`);
  put(/^    192\.0\.2\.10\/24 dev eth1$/, `    ${VIRTUAL_ADDRESS}/24 dev wan`);
  // The clients are on the WAN's wire under another prefix, reached without a gateway.
  put(/^    0\.0\.0\.0\/0 via 192\.0\.2\.1 dev eth1 src 192\.0\.2\.10 metric 10$/, `    ${CLIENTS_NET} dev wan src ${VIRTUAL_ADDRESS} metric 10`);
  put(/^  notify \/usr\/libexec\/wgcp\/wgcp-ha-notify$/, `  notify "${path.join(r.dir, 'notify')} --data-dir ${r.dataDir}"`);
  return text;
}

/** A veth from a router (or client) namespace to a bridge in `bridgeNs`. */
function plug(ns: Netns, ifname: string, bridgeNs: Netns, bridge: string, address: string): void {
  const port = `p${crypto.randomBytes(4).toString('hex')}`;
  sh('ip', ['link', 'add', ifname, 'netns', ns.name, 'type', 'veth', 'peer', 'name', port, 'netns', bridgeNs.name]);
  bridgeNs.exec('ip', ['link', 'set', port, 'master', bridge, 'up']);
  ns.exec('ip', ['address', 'add', address, 'dev', ifname]);
  ns.exec('ip', ['link', 'set', ifname, 'up']);
}

function makeBridge(ns: Netns, name: string): void {
  ns.exec('ip', ['link', 'add', 'name', name, 'type', 'bridge', 'mcast_snooping', '0']);
  ns.exec('ip', ['link', 'set', name, 'up']);
}

const readOr = (file: string): string => { try { return fs.readFileSync(file, 'utf8'); } catch { return ''; } };

function killPidFile(file: string): void {
  const pid = Number(readOr(file).trim());
  if (pid > 0) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
}

export class HaPair {
  readonly wan = new Netns('wan');
  readonly lan = new Netns('lan');
  readonly client = new Netns('cli');
  readonly routers = {} as Record<RouterName, HaRouter>;
  readonly apiKey = crypto.randomBytes(24).toString('base64url');
  private readonly clientChildren: ChildProcess[] = [];

  constructor() {
    try {
      this.build();
    } catch (err) {
      this.destroy();
      throw err;
    }
  }

  private build(): void {
    makeBridge(this.wan, 'bridge0');
    makeBridge(this.lan, 'bridge0');
    this.lan.exec('ip', ['address', 'add', `${LAN_HOST}/24`, 'dev', 'bridge0']);
    plug(this.client, 'wan', this.wan, 'bridge0', `${CLIENT_ADDRESS}/24`);
    // The routers are "the internet" away: on the same wire, another prefix.
    this.client.exec('ip', ['route', 'add', '192.0.2.0/24', 'dev', 'wan']);
    const key = crypto.randomBytes(32).toString('base64');
    const salt = crypto.randomBytes(32).toString('hex');
    const make = (name: RouterName): void => {
      const ns = new Netns(`r${name}`);
      const dir = tempDir(`wgcp-ha-${name}-`);
      const dataDir = path.join(dir, 'data');
      fs.mkdirSync(dataDir, { mode: 0o700 });
      fs.writeFileSync(path.join(dir, 'ha-key'), key + '\n', { mode: 0o600 });
      // Both routers derive the same device keys: one device salt, copied to both (docs/ha.md).
      fs.writeFileSync(path.join(dataDir, 'server-salt'), salt + '\n', { mode: 0o600 });
      // One API key for both (WGCP_API_KEY, as the docs advise a pair): the test asks either router with it.
      fs.writeFileSync(path.join(dataDir, 'api-key'), this.apiKey + '\n', { mode: 0o600 });
      const router: HaRouter = {
        name, ns, dir, dataDir, daemon: null, keepalived: null, keepalivedLog: '',
        notifies: () => readOr(path.join(dir, 'notify.log')).split('\n').filter(Boolean),
      };
      this.routers[name] = router;
      fs.writeFileSync(path.join(dir, 'keepalived.conf'), keepalivedConf(router));
      plug(ns, 'wan', this.wan, 'bridge0', `${PLAN[name].wan}/24`);
      plug(ns, 'lan', this.lan, 'bridge0', `${PLAN[name].lan}/24`);
      // The standby reaches clients too (a static route); the primary's own, from keepalived, wins and leaves from the virtual address.
      ns.exec('ip', ['route', 'add', CLIENTS_NET, 'dev', 'wan', 'metric', '100']);
      ns.exec('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
      // The shipped script, with `wgcp` on PATH as this clone's CLI; each call logged.
      const bin = path.join(dir, 'bin');
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, 'wgcp'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`, { mode: 0o755 });
      fs.writeFileSync(path.join(dir, 'notify'), `#!/bin/sh\necho "$*" >> ${path.join(dir, 'notify.log')}\nPATH=${bin}:$PATH exec sh ${NOTIFY_SCRIPT} "$@"\n`, { mode: 0o755 });
    };
    make('a');
    make('b');
    const port = `s${crypto.randomBytes(4).toString('hex')}`;
    sh('ip', ['link', 'add', 'sync', 'netns', this.routers.a.ns.name, 'type', 'veth', 'peer', 'name', port, 'netns', this.routers.b.ns.name]);
    this.routers.b.ns.exec('ip', ['link', 'set', port, 'name', 'sync']);
    for (const name of ['a', 'b'] as const) {
      this.routers[name].ns.exec('ip', ['address', 'add', `${PLAN[name].sync}/30`, 'dev', 'sync']);
      this.routers[name].ns.exec('ip', ['link', 'set', 'sync', 'up']);
    }
  }

  /** Starts wgcpd on a router with the pair's environment (and `env`); resolves once it answers. */
  async startDaemon(name: RouterName, env: Record<string, string> = {}): Promise<NsDaemon> {
    const r = this.routers[name];
    r.daemon = await startNsDaemon(r.ns, { dataDir: r.dataDir, env: { ...haEnv(r), WGCP_API_KEY: this.apiKey, ...env } });
    return r.daemon;
  }

  /** Starts keepalived on a router (no fork, logs to its output, its own pid files). */
  startKeepalived(name: RouterName): void {
    const r = this.routers[name];
    r.keepalived = r.ns.spawn('keepalived', ['-n', '-l', '-D', '-P', '-f', path.join(r.dir, 'keepalived.conf'),
      '-p', path.join(r.dir, 'keepalived.pid'), '-r', path.join(r.dir, 'vrrp.pid'), '-c', path.join(r.dir, 'checkers.pid')]);
    const add = (d: Buffer) => { r.keepalivedLog += d.toString(); };
    r.keepalived.stdout!.on('data', add);
    r.keepalived.stderr!.on('data', add);
  }

  /** Which router holds the virtual address on a link that is up (a killed one keeps it on its dead link); null: none. */
  holder(): RouterName | null {
    for (const name of ['a', 'b'] as const) {
      const ns = this.routers[name].ns;
      if (!/<[^>]*\bUP\b/.test(ns.exec('ip', ['-o', 'link', 'show', 'wan']))) continue;
      if (ns.exec('ip', ['-4', '-o', 'address', 'show', 'dev', 'wan']).includes(` ${VIRTUAL_ADDRESS}/`)) return name;
    }
    return null;
  }

  /** Resolves once `name` holds the virtual address (the test's own limit ends a wait that never does). */
  async waitForHolder(name: RouterName): Promise<void> {
    while (this.holder() !== name) await new Promise((r) => setTimeout(r, 50));
  }

  /** A dead router: keepalived and wgcpd killed with SIGKILL (nothing said on the way out), then its WAN link down. */
  kill(name: RouterName): void {
    const r = this.routers[name];
    killPidFile(path.join(r.dir, 'vrrp.pid'));
    killPidFile(path.join(r.dir, 'keepalived.pid'));
    if (r.daemon) try { process.kill(r.daemon.pid, 'SIGKILL'); } catch { /* gone */ }
    r.ns.exec('ip', ['link', 'set', 'wan', 'down']);
    r.daemon = null;
    r.keepalived = null;
  }

  /** The router comes back as after a reboot: no virtual address or route left, its link up, keepalived and wgcpd started on its old data. */
  async revive(name: RouterName, env: Record<string, string> = {}): Promise<NsDaemon> {
    const r = this.routers[name];
    try { r.ns.exec('ip', ['address', 'del', `${VIRTUAL_ADDRESS}/24`, 'dev', 'wan']); } catch { /* not held */ }
    try { r.ns.exec('ip', ['route', 'del', CLIENTS_NET, 'metric', '10']); } catch { /* not held */ }
    r.ns.exec('ip', ['link', 'set', 'wan', 'up']);
    this.startKeepalived(name);
    return this.startDaemon(name, env);
  }

  /** A wireguard-go client in the client namespace, loaded with the .conf the API gave; `routes` go through its tunnel. */
  async addClient(conf: string, routes: string[] = []): Promise<HaClient> {
    const ifname = `wgh${crypto.randomBytes(3).toString('hex')}`;
    const child = spawn('ip', ['netns', 'exec', this.client.name, 'wireguard-go', '-f', ifname], {
      env: { ...process.env, WG_PROCESS_FOREGROUND: '1' }, stdio: 'ignore',
    });
    this.clientChildren.push(child);
    while (!fs.existsSync(`/run/wireguard/${ifname}.sock`)) {
      if (child.exitCode !== null) throw new Error(`client wireguard-go exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    this.setConf(ifname, stripConf(conf));
    const address = /^Address = ([^,\n]+)/m.exec(conf)![1].trim();
    this.client.exec('ip', ['address', 'add', address, 'dev', ifname]);
    this.client.exec('ip', ['link', 'set', ifname, 'up']);
    for (const route of routes) this.client.exec('ip', ['route', 'replace', route, 'dev', ifname]);
    return { ifname, conf, publicKey: () => this.client.exec('wg', ['show', ifname, 'public-key']).trim() };
  }

  private setConf(ifname: string, text: string): void {
    const file = path.join(tempDir('wgcp-ha-client-'), 'peer.conf');
    fs.writeFileSync(file, text, { mode: 0o600 });
    this.client.exec('wg', ['setconf', ifname, file]);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }

  /**
   * The client forgets the server's endpoint (and its session): it cannot start a handshake
   * any more, only answer one, and it learns the endpoint again from the packet that starts it.
   */
  makePassive(c: HaClient): void {
    // setconf without a ListenPort would move the client to another port than the router saw.
    const port = this.client.exec('wg', ['show', c.ifname, 'listen-port']).trim();
    const text = stripConf(c.conf).replace(/^(Endpoint|PersistentKeepalive) = .*\n/gm, '').replace(/^\[Interface\]\n/m, `[Interface]\nListenPort = ${port}\n`);
    this.setConf(c.ifname, text);
  }

  /** The client's view of its one peer (the server): endpoint and latest handshake (seconds since the epoch, 0: none). */
  clientPeer(c: HaClient): { endpoint: string; handshake: number } {
    const line = this.client.exec('wg', ['show', c.ifname, 'dump']).trim().split('\n')[1].split('\t');
    return { endpoint: line[2], handshake: Number(line[4]) };
  }

  destroy(): void {
    for (const c of this.clientChildren) if (c.exitCode === null) c.kill('SIGKILL');
    for (const r of Object.values(this.routers)) {
      killPidFile(path.join(r.dir, 'vrrp.pid'));
      killPidFile(path.join(r.dir, 'keepalived.pid'));
      r.ns.destroy();
    }
    this.client.destroy();
    this.lan.destroy();
    this.wan.destroy();
  }
}
