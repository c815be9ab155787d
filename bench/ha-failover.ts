// The standby pair's failover, measured: the pair of test/helpers/ha-pair.ts (two router
// namespaces, real keepalived, wireguard-go clients) with 200 and then 2,000 peers, a client
// pinging the LAN host every 50 ms through the tunnel, and the primary killed (SIGKILL of
// wgcpd and keepalived, its WAN link down). Prints the longest gap between two answers, when
// the virtual address moved and when the standby said it was primary, and what its wake-up
// did. Every peer but the pinging client gets an endpoint on the primary's kernel (a port
// where nothing listens), so that the wake-up starts as many handshakes as a real fleet.
// Needs root. Sizes: WGCP_BENCH_SIZES=200,2000 (the default).
import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import path from 'node:path';
import { HaPair, LAN_HOST, VIRTUAL_ADDRESS, type RouterName } from '../test/helpers/ha-pair';
import { PingLog } from '../test/helpers/ping-log';

const SIZES = (process.env.WGCP_BENCH_SIZES ?? '200,2000').split(',').map(Number);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Creates the peers from inside the router's namespace in one process (one request at a time).
const CREATE = `
const [url, key, server, n] = process.argv.slice(1);
(async () => {
  for (let i = 1; i < Number(n); i++) {
    const r = await fetch(url + '/api/servers/' + server + '/peers', { method: 'POST', headers: { 'wg-control-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'p' + i, allowInternet: true }) });
    if (r.status !== 201) { console.error(r.status, await r.text()); process.exit(1); }
  }
})();`;

async function until(ok: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ok())) await sleep(100);
}

async function measure(peers: number): Promise<Record<string, number | string>> {
  const pair = new HaPair();
  try {
    const env = { WGCP_USAGE_INTERVAL_S: '2' };
    await Promise.all([pair.startDaemon('a', env), pair.startDaemon('b', env)]);
    const api = (name: RouterName, method: string, p: string, body?: unknown) => pair.routers[name].daemon!.api(method, p, body);
    const ha = async (name: RouterName) => (await api(name, 'GET', '/api/ha')).json as { role: string; sequence: number; partner: { connected: boolean } };
    pair.startKeepalived('a');
    await pair.waitForHolder('a');
    await until(async () => (await ha('a')).role === 'primary');
    pair.startKeepalived('b');
    const server = await api('a', 'POST', '/api/servers', { name: 'office', endpoint: `${VIRTUAL_ADDRESS}:51820`, mode: 'forward', address: '10.80.0.1/16' });
    const first = await api('a', 'POST', `/api/servers/${server.json.id}/peers`, { name: 'p0', allowInternet: true, lanAccess: 'lan' });
    const started = Date.now();
    pair.routers.a.ns.exec(process.execPath, ['-e', CREATE, 'http://127.0.0.1:8080', pair.apiKey, String(server.json.id), String(peers)]);
    const createS = (Date.now() - started) / 1000;
    // Every other peer "was seen" at a port of the client's address where nothing listens.
    const keys = pair.routers.a.daemon!.exec('wg', ['show', 'wgcp1', 'peers']).trim().split('\n').filter((k) => k !== first.json.publicKey);
    for (let i = 0; i < keys.length; i += 250) {
      const args = keys.slice(i, i + 250).flatMap((k, j) => ['peer', k, 'endpoint', `198.51.100.2:${20000 + i + j}`]);
      pair.routers.a.daemon!.exec('wg', ['set', 'wgcp1', ...args]);
    }
    const conf = (await api('a', 'GET', `/api/peers/${first.json.id}/config`)).text;
    await pair.addClient(conf, ['10.1.0.0/24']);
    const ping = new PingLog(pair.client, LAN_HOST, 0.05);
    await until(() => ping.replies.length > 0);
    const db = path.join(pair.routers.b.dataDir, 'wgcp.db');
    const endpoints = () => { const d = new Database(db, { readonly: true }); try { return (d.prepare('SELECT count(*) AS n FROM peer_endpoints').get() as { n: number }).n; } finally { d.close(); } };
    await until(async () => {
      const [a, b] = await Promise.all([ha('a'), ha('b')]);
      return b.role === 'standby' && a.partner.connected && a.sequence === b.sequence && endpoints() >= peers;
    });
    await sleep(3000); // steady pings before the kill
    const killedAt = Date.now();
    pair.kill('a');
    await pair.waitForHolder('b');
    const movedMs = Date.now() - killedAt;
    await until(async () => (await ha('b')).role === 'primary');
    const primaryMs = Date.now() - killedAt;
    await until(() => ping.after(killedAt + 200) > 0);
    await sleep(3000); // answers again for a while: the gap is closed
    ping.stop();
    const wake = /"msg":"promotion: handshakes started[^\n]*"peers":(\d+)[^\n]*"ms":(\d+)/.exec(pair.routers.b.daemon!.output());
    return {
      peers, createS: Math.round(createS), addressMovedMs: movedMs, standbyPrimaryMs: primaryMs,
      longestGapMs: ping.longestGap(killedAt - 1000), woken: wake ? Number(wake[1]) : 'none', wakeMs: wake ? Number(wake[2]) : 'none',
    };
  } finally {
    pair.destroy();
  }
}

async function main(): Promise<void> {
  console.log(`machine: ${execFileSync('nproc').toString().trim()} cores, ${execFileSync('uname', ['-r']).toString().trim()}, keepalived advert_int 0.5 (VRRPv3)`);
  for (const n of SIZES) console.log(JSON.stringify(await measure(n)));
}

main().catch((err) => { console.error(err); process.exit(1); });
