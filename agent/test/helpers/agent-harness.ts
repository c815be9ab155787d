// Runs the agent in this process against a DeviceServer, with a tunnel that records what
// it was asked to run (the real tunnel is tested in tunnel.test.ts and the root e2e suites).
import fs from 'node:fs';
import path from 'node:path';
import { Agent } from '../../src/agent';
import { loadConfigFile } from '../../src/config';
import { createLogger } from '../../src/log';
import type { TunnelConfig } from '../../src/payload';
import type { Tunnel, TunnelStatus } from '../../src/tunnel';
import { FastClock, until } from './clocks';
import type { DeviceServer } from './device-server';
import { tempDir } from './temp-dir';

export class RecordingTunnel implements Tunnel {
  ups: TunnelConfig[] = [];
  downs = 0;
  failUps = 0;
  status: TunnelStatus = { present: false, lastHandshake: null };
  async up(cfg: TunnelConfig): Promise<void> {
    if (this.failUps > 0) { this.failUps--; throw new Error('planned tunnel failure'); }
    this.ups.push(cfg);
    this.status = { present: true, lastHandshake: new Date() };
  }
  async down(): Promise<void> { this.downs++; this.status = { present: false, lastHandshake: null }; }
  async inspect(): Promise<TunnelStatus> { return this.status; }
}

export interface Harness {
  dir: string;
  configFile: string;
  stateDir: string;
  tunnel: RecordingTunnel;
  logs: string[];
  agent: Agent;
  start(): void;
  stop(): Promise<void>;
  waitFor(cond: () => boolean, what: string, ms?: number): Promise<void>;
  writeConfig(extra?: Record<string, unknown>): void;
  /** The networks forwarding was turned on for, once per tunnel brought up (never the host's own /proc/sys). */
  forwarded: string[][];
}

export function harness(server: DeviceServer, token: string, dir = tempDir('wgcp-agent-run-')): Harness {
  const configFile = path.join(dir, 'agent.json');
  const stateDir = path.join(dir, 'state');
  const base = { server_url: server.url, token, server_salt: server.salt, hwid: 'board-0042', interface: 'wgcpt0', state_dir: stateDir, heartbeat_interval_s: 1 };
  const h: Harness = {
    dir, configFile, stateDir, tunnel: new RecordingTunnel(), logs: [], agent: null as unknown as Agent, forwarded: [],
    writeConfig(extra = {}) { fs.writeFileSync(configFile, JSON.stringify({ ...base, ...extra })); },
    start() {
      const log = createLogger((line) => { h.logs.push(line); });
      // random 0.5: the second heartbeat one interval after the first, as the timing tests expect.
      h.agent = new Agent({ configFile, config: loadConfigFile(configFile), log, clock: new FastClock(10), makeTunnel: () => h.tunnel, random: () => 0.5,
        forwarding: (networks) => { h.forwarded.push([...networks]); return []; } });
      running = h.agent.run();
    },
    async stop() { h.agent.stop(); await running; },
    waitFor: (cond, what, ms = 8000) => until(cond, ms, what),
  };
  let running: Promise<void> = Promise.resolve();
  h.writeConfig();
  return h;
}
