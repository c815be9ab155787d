// Picking the kernel backend at start-up: `on` refuses to start, loudly, when nft, wg or the
// privileges are missing; `auto` runs with the backend off and says why in the log and /healthz.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { startTestDaemon, tempDir } from './helpers/daemon';

const t = suite('kernel: backend selection');
const MAIN = path.join(__dirname, '../src/main.js');

const toolPath = (tool: string): string => execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();

/** A PATH folder holding only the named tools (links to the real ones). */
function pathWith(tools: string[]): string {
  const dir = tempDir('wgcp-path-');
  for (const tool of tools) fs.symlinkSync(toolPath(tool), path.join(dir, tool));
  return dir;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

interface Run { code: number | null; output: string }

/** Runs wgcpd until it exits, `untilReady` has seen it serve or its log matched `untilLogged`; then stops it. */
function runDaemon(env: Record<string, string>, opts: { uid?: number; port?: number; untilReady?: (port: number) => Promise<void>; untilLogged?: RegExp; prefix?: string[]; netAdmin?: boolean } = {}): Promise<Run> {
  const dataDir = tempDir('wgcp-select-');
  if (opts.uid !== undefined) fs.chownSync(dataDir, opts.uid, opts.uid);
  // netAdmin: the other user keeps CAP_NET_ADMIN, as the packaged units give it.
  const caps = opts.netAdmin ? ['--inh-caps=+net_admin', '--ambient-caps=+net_admin'] : [];
  const command = opts.uid === undefined ? [process.execPath, MAIN] : [toolPath('setpriv'), `--reuid=${opts.uid}`, `--regid=${opts.uid}`, '--clear-groups', ...caps, process.execPath, MAIN];
  const [cmd, ...args] = [...(opts.prefix ?? []), ...command];
  const child = spawn(cmd, args, { env: { WGCP_DATA_DIR: dataDir, WGCP_LISTEN: `127.0.0.1:${opts.port ?? 0}`, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
  if (opts.untilLogged) {
    const logged = opts.untilLogged;
    const watch = (): void => { if (logged.test(output)) child.kill('SIGTERM'); };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
  }
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  if (opts.untilReady) {
    opts.untilReady(opts.port!).finally(() => child.kill('SIGTERM'));
  }
  return new Promise((resolve) => child.on('exit', (code) => {
    clearTimeout(killer);
    fs.rmSync(dataDir, { recursive: true, force: true });
    resolve({ code, output });
  }));
}

async function healthzWhenUp(port: number): Promise<any> {
  for (let i = 0; i < 100; i++) {
    try {
      return await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('wgcpd never answered /healthz');
}

t('WGCP_KERNEL=off never touches the kernel and says so in /healthz', async () => {
  const d = await startTestDaemon({ env: { WGCP_KERNEL: 'off' } });
  try {
    const health: any = await (await fetch(`${d.url}/healthz`)).json();
    assert.is(health.kernel, 'off');
    assert.is(health.kernelReason, 'WGCP_KERNEL=off');
  } finally {
    await d.stop();
    fs.rmSync(d.dataDir, { recursive: true, force: true });
  }
});

if (canRunAsRoot('kernel backend selection', ['ip', 'nft', 'wg', 'setpriv'])) {
  t('WGCP_KERNEL=on refuses to start without wg, naming what is missing', async () => {
    const run = await runDaemon({ WGCP_KERNEL: 'on', PATH: pathWith(['ip', 'nft']) });
    assert.is(run.code, 3);
    assert.match(run.output, /WGCP_KERNEL=on but the kernel cannot be driven: wg cannot be run \(wg: not found\)/);
  });

  t('WGCP_KERNEL=on refuses to start without nft', async () => {
    const run = await runDaemon({ WGCP_KERNEL: 'on', PATH: pathWith(['ip', 'wg']) });
    assert.is(run.code, 3);
    assert.match(run.output, /nft cannot be run \(nft: not found\)/);
  });

  t('WGCP_KERNEL=on refuses to start without the privilege to use nftables', async () => {
    const run = await runDaemon({ WGCP_KERNEL: 'on', PATH: process.env.PATH! }, { uid: 65534 });
    assert.is(run.code, 3);
    assert.match(run.output, /nftables cannot be used, missing privileges\?.*Operation not permitted/);
  });

  const hasWireGuardModule = (): boolean => {
    try {
      execFileSync('ip', ['link', 'add', 'dev', 'wgcpselmod', 'type', 'wireguard'], { stdio: 'ignore' });
      execFileSync('ip', ['link', 'del', 'dev', 'wgcpselmod'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };

  // The daemon as another user keeping CAP_NET_ADMIN, with a 0600 root-owned TUN node bound
  // over /dev/net/tun, in mount and network namespaces of its own (its nft table stays there).
  function runWithClosedTun(): Promise<Run> {
    const dir = tempDir('wgcp-tun-');
    const node = path.join(dir, 'tun');
    execFileSync('mknod', ['-m', '0600', node, 'c', '10', '200']);
    const prefix = [toolPath('unshare'), '-m', '-n', 'sh', '-c', 'ip link set lo up && mount --bind "$0" /dev/net/tun && exec "$@"', node];
    return runDaemon({ WGCP_KERNEL: 'on', PATH: process.env.PATH! }, { uid: 65534, netAdmin: true, prefix, untilLogged: /kernel backend is ON/ });
  }

  if (hasWireGuardModule()) {
    t('WGCP_KERNEL=on with the kernel\'s WireGuard module starts without /dev/net/tun, driving the module', async () => {
      const run = await runWithClosedTun();
      assert.is(run.code, 0, run.output);
      assert.match(run.output, /"msg":"kernel backend is ON".*"wireguard":"kernel"/);
    });
  } else {
    t('WGCP_KERNEL=on refuses to start when wireguard-go is needed and this user cannot open /dev/net/tun', async () => {
      const run = await runWithClosedTun();
      assert.is(run.code, 3, run.output);
      assert.match(run.output, /this user cannot open \/dev\/net\/tun for wireguard-go/);
    });
  }

  t('WGCP_KERNEL=auto without the tools runs with the backend off and says why in the log and /healthz', async () => {
    const port = await freePort();
    let health: any;
    const run = await runDaemon({ WGCP_KERNEL: 'auto', PATH: pathWith(['ip', 'nft']) }, { port, untilReady: async (p) => { health = await healthzWhenUp(p); } });
    assert.is(run.code, 0);
    assert.is(health.kernel, 'off');
    assert.match(health.kernelReason, /wg cannot be run/);
    assert.match(run.output, /"level":"warn","msg":"kernel backend is OFF: changes are stored but not applied/);
  });
}

t.run();
