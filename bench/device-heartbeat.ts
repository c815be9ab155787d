// Heartbeat throughput (issue 5): wrk drives keep-alive POST /api/v1/heartbeat load from a
// second process against the real wgcpd (its device listener, plain HTTP, a real SQLite
// file with WGCP_BENCH_DEVICES provisioned devices, each request a different device), then
// against a bare node:http server that parses the JSON body and answers one of the same
// size, in the same run. Target: wgcpd at 50% or more of the bare server's requests/s.
// 100,000 devices every 30 s is 3,333 heartbeats/s.
//   npx tsc -p . && node dist/bench/device-heartbeat.js     (needs Debian's wrk)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const DEVICES = Number(process.env.WGCP_BENCH_DEVICES ?? 2000);
const DURATION = process.env.WGCP_BENCH_DURATION ?? '15s';
const CONNECTIONS = Number(process.env.WGCP_BENCH_CONNECTIONS ?? 64);
const THREADS = Number(process.env.WGCP_BENCH_THREADS ?? 1);
// Rounds alternate wgcpd and the bare server, so that load from elsewhere on the machine
// falls on both alike; the table shows the median round of each.
const ROUNDS = Number(process.env.WGCP_BENCH_ROUNDS ?? 3);
const SALT = 'bench-salt-0123456789abcdef';

/** Collects a child's stdout so that several patterns can be awaited, in any chunking. */
function watchOutput(child: ChildProcess) {
  let out = '';
  child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  return (pattern: RegExp): Promise<RegExpExecArray> => new Promise((resolve, reject) => {
    const deadline = Date.now() + 20_000;
    const poll = setInterval(() => {
      const m = pattern.exec(out);
      if (m) { clearInterval(poll); resolve(m); } else if (child.exitCode !== null || Date.now() > deadline) {
        clearInterval(poll);
        reject(new Error(`no "${pattern}" (exit ${child.exitCode}):\n${out}`));
      }
    }, 20);
  });
}

async function json(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

async function startWgcpd(dataDir: string): Promise<{ child: ChildProcess; api: string; device: string; key: string }> {
  // WGCP_BENCH_NODE_ARGS passes node flags to the daemon only (for example --cpu-prof).
  const nodeArgs = (process.env.WGCP_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(__dirname, '..', 'src', 'main.js')], {
    env: { ...process.env, WGCP_DATA_DIR: dataDir, WGCP_LISTEN: '127.0.0.1:0', WGCP_DEVICE_LISTEN: '127.0.0.1:0', WGCP_KERNEL: 'off', SERVER_SALT: SALT, WGCP_LOG_LEVEL: 'info',
      // The answer path, not the request buckets: wrk from one address would meet its source's bucket.
      WGCP_DEVICE_RATE: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const waitFor = watchOutput(child);
  let main: RegExpExecArray;
  let dev: RegExpExecArray;
  try {
    main = await waitFor(/"msg":"wgcpd is listening"[^\n]*"port":(\d+)/);
    dev = await waitFor(/"msg":"device API is listening"[^\n]*"port":(\d+)/);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return { child, api: `http://127.0.0.1:${main[1]}`, device: `http://127.0.0.1:${dev[1]}`, key: fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim() };
}

/** Provisions `n` devices through the real API and returns their ids. */
async function provisionFleet(api: string, device: string, key: string, n: number): Promise<string[]> {
  const auth = { 'wg-control-key': key };
  const server = await json(`${api}/api/servers`, 'POST', { name: 'bench', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.200.0.1/16' }, auth);
  for (let i = 0; i < n; i++) {
    const token = (await json(`${api}/api/servers/${server.id}/tokens`, 'POST', undefined, auth)).token;
    await json(`${device}/api/v1/provision`, 'POST', { token, hwid: `bench-${i}` });
  }
  // An admin's list: each device's id (its peer's, for the routes) and its device_id (uuid, for heartbeats).
  const devices = (await json(`${api}/api/devices`, 'GET', undefined, auth)) as { id: number; uuid: string }[];
  // A few forwards, so that forwards_hash is computed over real rows.
  for (let i = 0; i < Math.min(50, devices.length); i++) {
    await json(`${api}/api/devices/${devices[i].id}/forwards`, 'POST', { protocol: 'tcp', listenPort: 20000 + i, targetPort: 80 }, auth);
  }
  return devices.map((d) => d.uuid);
}

/** The floor of the HTTP layer: the same listener refusing a bad device_id (400) before any store access. */
function refusedScript(dir: string): string {
  const file = path.join(dir, 'refused.lua');
  fs.writeFileSync(file, 'wrk.method = "POST"\nwrk.path = "/api/v1/heartbeat"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = \'{"device_id":"not-a-uuid","status":"connected"}\'\n');
  return file;
}

/** A wrk script that sends a realistic heartbeat for a different device on each request. */
function wrkScript(dir: string, ids: string[]): string {
  const file = path.join(dir, 'heartbeat.lua');
  fs.writeFileSync(file, `
local ids = { ${ids.map((i) => `"${i}"`).join(', ')} }
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  n = n + 1
  local id = ids[(n % #ids) + 1]
  local body = '{"device_id":"' .. id .. '","status":"connected","state":"HEARTBEAT","tunnel_up":true,"last_handshake":"2026-11-22T10:00:00Z"}'
  return wrk.format(nil, "/api/v1/heartbeat", nil, body)
end
`);
  return file;
}

interface Result { rps: number; p50: string; p99: string; non2xx: number; requests: number }

function runWrk(url: string, script: string, expectErrors = false): Result {
  const out = execFileSync('wrk', ['-t', String(THREADS), '-c', String(CONNECTIONS), '-d', DURATION, '--latency', '-s', script, url], { encoding: 'utf8' });
  const pick = (re: RegExp) => re.exec(out)?.[1] ?? '';
  const result = {
    rps: Number(pick(/Requests\/sec:\s+([\d.]+)/)),
    p50: pick(/\n\s+50%\s+(\S+)/),
    p99: pick(/\n\s+99%\s+(\S+)/),
    non2xx: Number(pick(/Non-2xx or 3xx responses:\s+(\d+)/) || 0),
    requests: Number(pick(/(\d+) requests in/)),
  };
  if (!result.rps || (result.non2xx > 0) !== expectErrors) throw new Error(`wrk run failed or saw unexpected statuses:\n${out}`);
  return result;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-bench-hb-'));
  const wgcpd = await startWgcpd(path.join(dir, 'data'));
  let bare: ChildProcess | undefined;
  try {
    const t0 = Date.now();
    const ids = await provisionFleet(wgcpd.api, wgcpd.device, wgcpd.key, DEVICES);
    process.stderr.write(`provisioned ${ids.length} devices in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    const sample = await json(`${wgcpd.device}/api/v1/heartbeat`, 'POST', { device_id: ids[0], status: 'connected' });
    const size = Buffer.byteLength(JSON.stringify(sample));
    const script = wrkScript(dir, ids);
    bare = spawn(process.execPath, [path.join(__dirname, 'device-bare-server.js'), '0', String(size)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const barePort = (await watchOutput(bare)(/ready (\d+)/))[1];
    const rounds: { daemon: Result; baseline: Result; refused: Result }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const daemonRun = runWrk(wgcpd.device, script);
      const baselineRun = runWrk(`http://127.0.0.1:${barePort}`, script);
      const refusedRun = runWrk(wgcpd.device, refusedScript(dir), true);
      rounds.push({ daemon: daemonRun, baseline: baselineRun, refused: refusedRun });
      process.stderr.write(`round ${i + 1}: wgcpd ${daemonRun.rps.toFixed(0)}/s, bare ${baselineRun.rps.toFixed(0)}/s, refused ${refusedRun.rps.toFixed(0)}/s\n`);
    }
    const medianOf = (pick: (r: typeof rounds[number]) => Result): Result => rounds.map(pick).sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)];
    const daemon = medianOf((r) => r.daemon);
    const baseline = medianOf((r) => r.baseline);
    const refused = medianOf((r) => r.refused);
    const ratio = daemon.rps / baseline.rps;
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    process.stdout.write([
      `heartbeat benchmark: ${DEVICES} devices, wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}, median of ${ROUNDS} alternating rounds, response ${size} bytes, node ${process.version}, ${os.cpus().length} x ${cpu}`,
      '',
      '| target | requests/s | p50 | p99 | requests |',
      '|---|---|---|---|---|',
      `| wgcpd POST /api/v1/heartbeat | ${daemon.rps.toFixed(0)} | ${daemon.p50} | ${daemon.p99} | ${daemon.requests} |`,
      `| bare node:http (parse JSON, same-size answer) | ${baseline.rps.toFixed(0)} | ${baseline.p50} | ${baseline.p99} | ${baseline.requests} |`,
      `| wgcpd, same listener, bad device_id refused (400, no store access) | ${refused.rps.toFixed(0)} | ${refused.p50} | ${refused.p99} | ${refused.requests} |`,
      '',
      `wgcpd / bare = ${(ratio * 100).toFixed(1)}% (target >= 50%); per round: ${rounds.map((r) => `${((r.daemon.rps / r.baseline.rps) * 100).toFixed(0)}%`).join(', ')}`,
      `100,000 devices every 30 s need 3,333/s: ${daemon.rps >= 3333 ? 'met' : 'NOT met'}`,
      '',
    ].join('\n'));
    if (ratio < 0.5) process.exitCode = 1;
  } finally {
    bare?.kill('SIGTERM');
    wgcpd.child.kill('SIGTERM');
    await new Promise((r) => wgcpd.child.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err) => { process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`); process.exit(1); });
