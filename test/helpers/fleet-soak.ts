// The fleet soak (issue 28), shared by the short suite (test/fleet-soak.test.ts) and the
// longer bench (bench/soak.ts): one wgcpd with its kernel on in a router namespace, real
// wgcp-agent processes in a device namespace (each its own state folder and tunnel), a
// process of simulated devices heartbeating through the device API, peers created through
// the API all along; the daemon SIGKILLed at random moments (its wireguard-go too, as a power
// cut would) and started again; at the end every agent restarted at once.
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { AgentInstall, newToken, startAgentWorld, type AgentWorld } from './agent-world';
import { startNsDaemon } from './ns-daemon';
import { sh } from './netns';

const SIM = path.join(__dirname, '..', '..', 'bench', 'soak-sim.js');

export interface SoakOptions {
  label: string;
  devices: number;
  agents: number;
  /** Heartbeat interval of the simulated devices and of the agents, seconds. */
  intervalS: number;
  agentIntervalS: number;
  durationS: number;
  kills: number;
  /** The cuts and the peer creations come after this many seconds of a steady fleet (0: from the start). */
  killsFromS?: number;
  /** Seconds into the steady stretch from which its writes are counted again, clean of the first flush's one-time writes. */
  steadyCleanFromS?: number;
  /** A `wg` wrapper moving every peer's counters each minute (bench/flash-fake-wg.ts), as busy tunnels would. */
  wgPath?: string;
  /** Called every second with the running daemon's pid and data folder (the bench tallies its WAL). */
  everySecond?: (daemonPid: number, dataDir: string, phase: SoakPhase) => void;
  log?: (line: string) => void;
}

export type SoakPhase = 'setup' | 'steady' | 'cuts' | 'agents';

export interface SimFigures {
  devices: number; beats: number; lost: number; retried: number; retriedLastOkAt: number; statuses: Record<string, number>;
  p50: number; p99: number; max: number; oldestOk: number;
}

export interface SoakFigures {
  sim: SimFigures;
  /** The simulator's figures when the steady stretch ended (before any cut). */
  steadySim: SimFigures;
  restarts: { downMs: number; allAnsweredAfterS: number; retriedAnsweredAfterS: number; peersChecked: number; peersMissing: number[] }[];
  peersCreated: number;
  agentsBackWithoutToken: number;
  agentsProvisionedAgain: number;
  devicesBefore: number;
  devicesAfter: number;
  daemonRssMB: { start: number; end: number };
  /** The daemon's RSS at the start of the steady stretch and at each of its minutes. */
  steadyRssMB: number[];
  /** Bytes a day the daemon wrote over the steady stretch (write_bytes). */
  steadyWriteBytesPerDay: number;
  /** The same from steadyCleanFromS to the stretch's end; null without it. */
  steadyCleanWriteBytesPerDay: number | null;
  agentRssMB: number[];
  daemonWriteBytesPerDay: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const writeBytes = (pid: number): number => Number(/^write_bytes: (\d+)/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);

/** A power cut of the router: the daemon and the wireguard-go it started, SIGKILLed. */
async function cutPower(w: AgentWorld): Promise<void> {
  const pids = sh('ip', ['netns', 'pids', w.router.name]).split(/\s+/).filter(Boolean).map(Number)
    .filter((pid) => { try { return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'wireguard-go'; } catch { return false; } });
  for (const pid of [w.daemon.pid, ...pids]) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  for (const pid of [w.daemon.pid, ...pids]) {
    while (fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(safeRead(`/proc/${pid}/status`))) await sleep(20);
  }
}

const safeRead = (f: string): string => { try { return fs.readFileSync(f, 'utf8'); } catch { return ''; } };

/** The ids of the fleet server's peers, a page of 1,000 at a time (a whole list of 10,000 is megabytes). */
async function peerIds(w: AgentWorld): Promise<Set<number>> {
  const ids = new Set<number>();
  for (let offset = 0; ; offset += 1000) {
    const page = (await w.daemon.api('GET', `/api/servers/${w.serverId}/peers?limit=1000&offset=${offset}`)).json as { id: number }[];
    for (const p of page) ids.add(p.id);
    if (page.length < 1000) return ids;
  }
}

export async function runSoak(o: SoakOptions): Promise<SoakFigures> {
  const log = o.log ?? (() => {});
  const w = await startAgentWorld(o.label);
  const agents: AgentInstall[] = [];
  let sim: ChildProcess | null = null;
  let stopTicker = () => {};
  let phase: SoakPhase = 'setup';
  try {
    // A /16 for the fleet (the world's own server is a /24); the agents enrol on it too.
    const fleet = await w.daemon.api('POST', '/api/servers', { name: 'fleet', endpoint: `${w.routerIp}:51821`, mode: 'forward', address: '10.90.0.1/16', listenPort: 51821 });
    if (fleet.status !== 201) throw new Error(`cannot create the fleet's server: ${fleet.text}`);
    Object.assign(w, { serverId: fleet.json.id, serverWgIp: '10.90.0.1' });
    if (o.wgPath) {
      w.daemonEnv.PATH = `${o.wgPath}:${process.env.PATH}`;
      await w.daemon.stop();
      w.daemon = await startNsDaemon(w.router, { dataDir: w.dataDir, env: w.daemonEnv });
    }
    const ticker = setInterval(() => { try { o.everySecond?.(w.daemon.pid, w.dataDir, phase); } catch { /* between daemons */ } }, 1000);
    stopTicker = () => clearInterval(ticker);
    const daemonRssStart = rssMB(w.daemon.pid);
    let simLast: SimFigures | null = null;
    let simOut = '';
    sim = w.router.spawn(process.execPath, [SIM, '8080', w.daemon.key, w.salt, String(w.serverId), String(o.devices), String(o.intervalS)]);
    sim.stderr!.on('data', (d: Buffer) => { simOut += d.toString(); });
    let provisioned = false;
    sim.stdout!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n').filter((l) => l.startsWith('{'))) {
        const j = JSON.parse(line);
        if ('provisioned' in j) provisioned = true; else simLast = j;
      }
    });
    for (const end = Date.now() + 600_000; !provisioned;) {
      if (Date.now() > end || sim.exitCode !== null) throw new Error(`the simulated devices did not start: ${simOut}`);
      await sleep(100);
    }
    log(`${o.devices} simulated devices provisioned and heartbeating every ${o.intervalS} s`);

    for (let i = 0; i < o.agents; i++) {
      const a = new AgentInstall(w);
      a.writeConfig(await newToken(w), { heartbeat_interval_s: o.agentIntervalS });
      a.start();
      agents.push(a);
    }
    for (const a of agents) await a.waitConnected(120_000);
    log(`${o.agents} agents connected`);

    // A steady fleet first: the daemon's RSS each minute and its writes with nothing else going on.
    phase = 'steady';
    const steadyFrom = { at: Date.now(), bytes: writeBytes(w.daemon.pid) };
    const steadyRssMB = [rssMB(w.daemon.pid)];
    let cleanFrom: { at: number; bytes: number } | null = null;
    const cleanTimer = o.steadyCleanFromS ? setTimeout(() => { cleanFrom = { at: Date.now(), bytes: writeBytes(w.daemon.pid) }; }, o.steadyCleanFromS * 1000) : null;
    for (let m = 1; m * 60 <= (o.killsFromS ?? 0); m++) {
      await sleep(Math.max(0, steadyFrom.at + m * 60_000 - Date.now()));
      steadyRssMB.push(rssMB(w.daemon.pid));
      log(`steady minute ${m}: wgcpd RSS ${steadyRssMB[m].toFixed(1)} MB, ${JSON.stringify(simLast)}`);
    }
    await sleep(Math.max(0, steadyFrom.at + (o.killsFromS ?? 0) * 1000 - Date.now()));
    const steadyWriteBytesPerDay = ((writeBytes(w.daemon.pid) - steadyFrom.bytes) * 86_400_000) / Math.max(1, Date.now() - steadyFrom.at);
    if (cleanTimer) clearTimeout(cleanTimer);
    const clean = cleanFrom as { at: number; bytes: number } | null;
    const steadyCleanWriteBytesPerDay = clean ? ((writeBytes(w.daemon.pid) - clean.bytes) * 86_400_000) / Math.max(1, Date.now() - clean.at) : null;
    const steadySim: SimFigures = { ...(simLast ?? {}) } as SimFigures;
    phase = 'cuts';

    // Changes all along: each peer the daemon answered 201 for is committed and must survive every cut.
    const created: number[] = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const r = await w.daemon.api('POST', `/api/servers/${w.serverId}/peers`, {}).catch(() => null);
        if (r?.status === 201) created.push(r.json.id);
        await sleep(200);
      }
    })();

    const t0 = Date.now();
    const startWrites = { at: Date.now(), bytes: writeBytes(w.daemon.pid) };
    const cutsS = o.durationS - (o.killsFromS ?? 0);
    const killAt = Array.from({ length: o.kills }, (_, i) => ((i + 0.3 + Math.random() * 0.5) / (o.kills + 1)) * cutsS * 1000).sort((a, b) => a - b);
    const restarts: SoakFigures['restarts'] = [];
    let writes = startWrites;
    for (const at of killAt) {
      await sleep(Math.max(0, t0 + at - Date.now()));
      // What the daemon had answered 201 for when the power went: committed, so it must come back.
      const committed = [...created];
      const down = Date.now();
      await cutPower(w);
      w.daemon = await startNsDaemon(w.router, { dataDir: w.dataDir, env: w.daemonEnv });
      const up = Date.now();
      writes = { at: Date.now(), bytes: writeBytes(w.daemon.pid) };
      const listed = await peerIds(w);
      // Every device answered since the restart: the oldest "last answered" is past it.
      // Waited for, however long a loaded machine takes (the simulator's end stops the wait);
      // how long it took is a figure (bench/soak.ts reports it), not a test bound.
      let answered = NaN;
      for (; sim.exitCode === null; await sleep(200)) {
        // (Seen through the simulator's line of each second: up to a second late.)
        if (simLast && (simLast as SimFigures).oldestOk > up) { answered = (Date.now() - up) / 1000; break; }
      }
      // The heartbeats refused while it was down, retried as agents do: when the last was answered.
      const retriedAnsweredAfterS = simLast ? ((simLast as SimFigures).retriedLastOkAt - up) / 1000 : NaN;
      restarts.push({ downMs: up - down, allAnsweredAfterS: answered, retriedAnsweredAfterS, peersChecked: committed.length, peersMissing: committed.filter((id) => !listed.has(id)) });
      log(`cut ${restarts.length}: back in ${up - down} ms; heartbeats refused meanwhile answered by ${retriedAnsweredAfterS.toFixed(1)} s after; every device answered ${answered.toFixed(1)} s after; ${committed.length} committed peers checked (checked at +${Date.now() - up} ms); RSS ${rssMB(w.daemon.pid).toFixed(1)} MB`);
    }
    await sleep(Math.max(0, t0 + cutsS * 1000 - Date.now()));
    writing = false;
    await writer;

    phase = 'agents';
    // A site's power back: every agent at once.
    // Counted by /api/stats: the whole device list of 10,000 is megabytes.
    const devicesBefore = (await w.daemon.api('GET', '/api/stats')).json.totalDevices as number;
    await Promise.all(agents.map((a) => a.stop('SIGKILL')));
    for (const a of agents) a.start();
    for (const a of agents) await a.waitConnected(120_000);
    const provisionedAgain = agents.filter((a) => a.logs().some((l) => l.msg === 'provisioned')).length;
    const devicesAfter = (await w.daemon.api('GET', '/api/stats')).json.totalDevices as number;
    log(`${o.agents} agents restarted together: back connected, ${provisionedAgain} provisioned again`);

    const daemonWriteBytesPerDay = ((writeBytes(w.daemon.pid) - writes.bytes) * 86_400_000) / Math.max(1, Date.now() - writes.at);
    sim.kill('SIGTERM');
    await new Promise((r) => sim!.once('exit', r));
    return {
      sim: simLast!, steadySim, steadyRssMB, steadyWriteBytesPerDay, steadyCleanWriteBytesPerDay, restarts, peersCreated: created.length,
      agentsBackWithoutToken: o.agents - provisionedAgain, agentsProvisionedAgain: provisionedAgain, devicesBefore, devicesAfter,
      daemonRssMB: { start: daemonRssStart, end: rssMB(w.daemon.pid) },
      agentRssMB: agents.map((a) => rssMB(a.child!.pid!)),
      daemonWriteBytesPerDay,
    };
  } finally {
    stopTicker();
    await Promise.all(agents.map((a) => a.stop('SIGKILL')));
    await w.destroy();
  }
}
