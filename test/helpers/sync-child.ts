// Run inside a namespace by test/kernel-sync.test.ts: the live plane (wireguard-go) and the
// change runner on a real store, as a standby router holds them: rows are written to the
// store first (as replication writes them), then syncServer makes the kernel follow, partial
// and full. No reconciler runs here: what is put right is put right by the sync. Prints one
// JSON line of what it saw.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventBus } from '../../src/events/bus';
import { liveKernel } from '../../src/kernel/select';
import { silentLogger } from '../../src/log';
import { syncServer } from '../../src/ops/kernel-sync';
import { ChangeRunner } from '../../src/ops/runner';
import { generatePresharedKey } from '../../src/wg/keys';
import { Store } from '../../src/store/store';

const IF = 'wgsync0';
const key = () => crypto.randomBytes(32).toString('base64');
const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8' });
const kernelKeys = () => sh('wg', ['show', IF, 'peers']).split('\n').filter(Boolean).sort();
const internet = () => sh('nft', ['list', 'set', 'inet', 'wgcp', 'internet']);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-sync-child-'));
  const store = Store.open(dir);
  const now = new Date().toISOString();
  const server = store.servers.insert({
    name: 'sync', endpoint: '192.0.2.1:51870', mode: 'forward', address6: null, interface: IF, address: '10.87.0.1/24',
    listenPort: 51870, dns: '10.87.0.1', mtu: null, privateKey: key(), publicKey: key(), createdAt: now, updatedAt: now,
  });
  const peer = (n: number, allowInternet: boolean) => store.peers.insert({
    serverId: server.id, name: `p${n}`, email: '', ip6: null, ip: `10.87.0.${n + 1}`, publicKey: key(), privateKey: null, presharedKey: generatePresharedKey(),
    allowAccess: [], allowInternet, enabled: true, disabledReasons: [], dataLimitGB: 0, usageBytes: 0, expiresAt: null, createdAt: now, updatedAt: now,
  });
  const [a, b, c] = [peer(1, true), peer(2, false), peer(3, true)];
  const kernel = liveKernel(silentLogger, 'wireguard-go');
  const runner = new ChangeRunner(store, kernel, new EventBus(silentLogger), silentLogger);
  const app = { runner };
  const seen: Record<string, unknown> = {};
  try {
    // Start-up's way: the table, then the server through its full sync.
    await kernel.prepare([{ server, peers: store.peers.kernelPeersOf(server.id), forwards: [] }]);
    await syncServer(app, server.id);
    seen.start = kernelKeys().length;
    // Rows arrive (a new peer, one flag flipped, one peer gone), then the partial sync of those three.
    const d = peer(4, false);
    store.peers.update({ ...b, allowInternet: true });
    store.peers.delete(c.id);
    await syncServer(app, server.id, { peers: [d.id, b.id, c.id] });
    seen.partialKeys = JSON.stringify(kernelKeys()) === JSON.stringify([a.publicKey, b.publicKey, d.publicKey].sort());
    seen.partialInternet = [a, b, c, d].map((p) => internet().includes(p.ip));
    // A row changed but not named: a partial sync leaves it as the kernel holds it.
    store.peers.update({ ...a, allowInternet: false });
    await syncServer(app, server.id, { peers: [d.id] });
    seen.unnamedKept = internet().includes(a.ip);
    // Behind the plane's back: a peer removed from the interface, then a full sync.
    sh('wg', ['set', IF, 'peer', d.publicKey, 'remove']);
    await syncServer(app, server.id);
    seen.fullKeys = JSON.stringify(kernelKeys()) === JSON.stringify([a.publicKey, b.publicKey, d.publicKey].sort());
    seen.fullInternet = internet().includes(a.ip);
  } finally {
    await kernel.close();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(seen) + '\n');
}

void main().catch((err) => { console.error(err); process.exit(1); });
