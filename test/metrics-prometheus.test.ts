// A real Prometheus (Debian's package) scrapes the real wgcpd with a bearer token, in the
// router's namespace: wgcpd with WGCP_KERNEL=on and a one-second usage interval, a
// wireguard-go client pushing real traffic through its tunnel. Prometheus' query API then
// answers the peer's bytes, and the traffic history answers the same traffic.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { nsRequest, startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { reachSoon, serveTcp, WgClient } from './helpers/wg-client';
import { tempDir } from './helpers/daemon';

const runAsync = promisify(execFile);
const BULK = path.join(__dirname, 'helpers/bulk-tcp.js');
const t = suiteNeeding('metrics: a real Prometheus scrapes wgcpd', ['ip', 'nft', 'wg', 'wireguard-go', 'prometheus'], { root: true });

const ENDPOINT_IP = '192.0.2.1';
const SERVER_IP = '10.79.0.1';
const PUSHED = 48 * 1024 * 1024;
let router: Netns;
let daemon: NsDaemon;
let client: WgClient;
let peer: { id: number; name: string; ip: string };
let serverId: number;

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** One instant query to Prometheus' HTTP API; the result's samples as [labels, value]. */
async function query(promql: string): Promise<[Record<string, string>, number][]> {
  const r = await nsRequest(router, `http://127.0.0.1:9090/api/v1/query?query=${encodeURIComponent(promql)}`, 'GET', {});
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'success');
  return (r.json.data.result as { metric: Record<string, string>; value: [number, string] }[]).map((s) => [s.metric, Number(s.value[1])]);
}

t.before(async () => {
  router = new Netns('prom');
  router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
  daemon = await startNsDaemon(router, { env: { WGCP_USAGE_INTERVAL_S: '1' } });
  const server = await daemon.api('POST', '/api/servers', { name: 'scraped', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward', address: `${SERVER_IP}/24` });
  assert.is(server.status, 201, server.text);
  serverId = server.json.id;
  const created = await daemon.api('POST', `/api/servers/${serverId}/peers`, { name: 'laptop' });
  assert.is(created.status, 201, created.text);
  peer = created.json;
  client = new WgClient('promc', router, 1, ENDPOINT_IP);
  await client.up((await daemon.api('GET', `/api/peers/${peer.id}/config`)).text, ['10.79.0.0/24']);
  await serveTcp(router, 7000, 'router');
  const sink = router.spawn(process.execPath, [BULK, 'sink', '9000']);
  await new Promise<void>((resolve) => sink.stdout!.once('data', () => resolve()));

  // Prometheus in the router's namespace, where wgcpd listens on 127.0.0.1:8080: one job with
  // an access token as the bearer credential, one without any.
  const token = await daemon.api('POST', '/api/access-tokens', { name: 'prometheus' });
  assert.is(token.status, 201, token.text);
  const dir = tempDir('wgcp-prom-');
  fs.writeFileSync(path.join(dir, 'token'), token.json.token, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), [
    'global: { scrape_interval: 1s, scrape_timeout: 1s }',
    'scrape_configs:',
    '  - job_name: wgcp',
    `    authorization: { type: Bearer, credentials_file: ${path.join(dir, 'token')} }`,
    "    static_configs: [{ targets: ['127.0.0.1:8080'] }]",
    '  - job_name: nocredentials',
    "    static_configs: [{ targets: ['127.0.0.1:8080'] }]",
    '',
  ].join('\n'));
  const prom = router.spawn('prometheus', [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`,
    '--web.listen-address=127.0.0.1:9090', '--log.level=warn']);
  let promLog = '';
  prom.stderr!.on('data', (b: Buffer) => { promLog += b.toString(); });
  await waitFor('Prometheus to answer', async () => {
    const r = await nsRequest(router, 'http://127.0.0.1:9090/-/ready', 'GET', {}).catch(() => null);
    if (prom.exitCode !== null) throw new Error(`prometheus exited: ${promLog}`);
    return r?.status === 200 ? true : undefined;
  }, 30_000);
});

t.after(async () => {
  await daemon?.stop();
  client?.destroy();
  router?.destroy();
});

t('Prometheus scrapes wgcpd with the bearer token; without it the target is down', async () => {
  const up = await waitFor('both targets scraped', async () => {
    const samples = await query('up');
    return samples.length === 2 ? new Map(samples.map(([m, v]) => [m.job, v])) : undefined;
  }, 20_000);
  assert.is(up.get('wgcp'), 1);
  assert.is(up.get('nocredentials'), 0, 'a scrape without credentials is refused (401)');
});

t('after real traffic through wireguard-go, the query API returns the peer\'s bytes', async () => {
  assert.is(await reachSoon(client.ns, SERVER_IP, 7000), `router ${peer.ip}`);
  const { stdout } = await runAsync('ip', ['netns', 'exec', client.ns.name, process.execPath, BULK, 'send', SERVER_IP, '9000', String(PUSHED), '5000'],
    { maxBuffer: 1 << 20, timeout: 120_000 });
  assert.is(JSON.parse(stdout).stalled, false);
  const selector = `{job="wgcp",server="${serverId}",peer="${peer.id}",name="laptop"}`;
  const received = await waitFor('the pushed bytes in Prometheus', async () => {
    const [s] = await query(`wgcp_peer_receive_bytes_total${selector}`);
    return s && s[1] >= PUSHED ? s[1] : undefined;
  }, 20_000);
  // WireGuard and TCP/IP headers count as well, but not a second copy.
  assert.ok(received < 2 * PUSHED, `received ${received} is about the ${PUSHED} pushed`);
  const [sent] = await query(`wgcp_peer_transmit_bytes_total${selector}`);
  assert.ok(sent[1] > 0 && sent[1] < received, `the ACKs back (${sent[1]} bytes)`);
  const [handshake] = await query(`wgcp_peer_latest_handshake_timestamp_seconds${selector}`);
  assert.ok(Math.abs(handshake[1] - Date.now() / 1000) < 300, 'the handshake is a recent Unix time');
  const [online] = await query(`wgcp_peers{job="wgcp",server="${serverId}",state="online"}`);
  assert.is(online[1], 1);
  const [applies] = await query('sum(wgcp_kernel_apply_duration_seconds_count{job="wgcp"})');
  assert.ok(applies[1] >= 3, 'reconcile, server and peer applies were timed');
});

t('the traffic history holds the same bytes', async () => {
  const points = await waitFor('the history to hold the pushed bytes', async () => {
    const r = await daemon.api('GET', `/api/peers/${peer.id}/usage?step=5m`);
    assert.is(r.status, 200, r.text);
    const rx = (r.json.points as { rxBytes: number }[]).reduce((a, p) => a + p.rxBytes, 0);
    return rx >= PUSHED ? r.json.points as { rxBytes: number; txBytes: number }[] : undefined;
  }, 10_000);
  const [received] = await query(`wgcp_peer_receive_bytes_total{job="wgcp",peer="${peer.id}"}`);
  const rx = points.reduce((a, p) => a + p.rxBytes, 0);
  // The history counts from the peer's first sight, as the counter does; the last scrape may lag a cycle.
  assert.ok(Math.abs(rx - received[1]) < 4 * 1024 * 1024, `history ${rx} and counter ${received[1]} agree`);
  const server = await daemon.api('GET', `/api/servers/${serverId}/usage?step=1h`);
  assert.is(server.json.points.reduce((a: number, p: { rxBytes: number }) => a + p.rxBytes, 0), rx, 'the server sum is its one peer');
});

t.run();
