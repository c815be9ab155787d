// The effects of the lifecycle: each state's work produces one event, the pure reducer
// (machine.ts) turns it into the next record, and the record is persisted before the next
// step. A process start is the table's `start`: it begins at BOOT and resumes from what
// the record holds (the sealed configuration, the hash), so a restart never spends a token.
import { sleep, type Clock } from './clock';

import { loadConfigFile, endpointUrl, ConfigError, type AgentConfig } from './config';
import { deriveKey, openSealed, seal, type SealKey } from './crypto';
import { heartbeatBody, judgeAnswer, type HeartbeatBody } from './heartbeat';
import { postJson, RequestError, type Answer, type HttpOptions, type Timeouts } from './http-client';
import { enableForwarding } from './forwarding';
import type { Logger } from './log';
import { reduce, retryDelayS, type AgentRecord, type Event } from './machine';
import { parsePayload, shortDeviceId, type TunnelConfig } from './payload';
import { ensureStateDir, loadRecord, removeLeftovers, saveRecord } from './persist';
import type { Tunnel } from './tunnel';

/** The longest wait a throttled stop report is given before its one more try. */
const STOP_RETRY_MAX_MS = 5000;

export interface AgentDeps {
  configFile: string;
  config: AgentConfig;
  log: Logger;
  clock: Clock;
  makeTunnel: (config: AgentConfig) => Tunnel;
  timeouts?: Timeouts;
  /** Longest wait for a first handshake before the first heartbeat of a new tunnel. */
  firstHandshakeWaitMs?: number;
  /** A number in [0, 1) for the spread of the second heartbeat (tests fix it). */
  random?: () => number;
  /** Turns on forwarding for the networks behind the device; returns what it could not (tests record it instead). */
  forwarding?: (networks: readonly string[]) => string[];
}

/**
 * The wait from a new tunnel's first heartbeat to the second: somewhere from half an interval
 * to one and a half. Devices that came up together (a site's power back) then heartbeat at
 * phases spread over a whole interval instead of all in the same second, for good. Rounded down,
 * so a random number just under 1 stays inside the interval and a tenth of it stays a tenth.
 */
export const secondBeatDelayMs = (intervalMs: number, random: number): number => Math.floor(intervalMs * (0.5 + random));

/** An answered heartbeat that changes nothing else is written at most this often (flash wear). */
export const HEARTBEAT_PERSIST_MS = 3600_000;

/** The record without the time of its last heartbeat: what must reach the disk at once when it changes. */
const withoutBeatTime = (r: AgentRecord): string => JSON.stringify({ ...r, last_heartbeat: null });

export class Agent {
  private config: AgentConfig;
  private record!: AgentRecord;
  /** The record as last written. */
  private written: AgentRecord | null = null;
  private key: SealKey | null = null;
  private tunnelConfig: TunnelConfig | null = null;
  private tunnel: Tunnel;
  private nextHeartbeatAt = 0;
  /** True until the first heartbeat of a tunnel just brought up has gone out. */
  private firstBeatOfTunnel = false;
  /** Set once this process has touched the tunnel; a stop before that leaves the device alone. */
  private tunnelTouched = false;
  private readonly stopper = new AbortController();
  /** The router's last refusal of the configured networks: logged as an error once, not every beat. */
  private networksRefused: string | null = null;

  constructor(private readonly deps: AgentDeps) {
    this.config = deps.config;
    this.tunnel = deps.makeTunnel(deps.config);
  }

  get current(): AgentRecord { return this.record; }

  /** The record as it stands, or null before run() has read it (`status` asks through its socket). */
  get snapshot(): AgentRecord | null { return this.record ?? null; }

  stop(): void { this.stopper.abort(); }

  private get stopping(): boolean { return this.stopper.signal.aborted; }
  private get log(): Logger { return this.deps.log; }
  private get intervalMs(): number { return this.config.heartbeat_interval_s * 1000; }

  async run(): Promise<void> {
    const dir = this.config.state_dir;
    ensureStateDir(dir);
    removeLeftovers(dir);
    const { record, problem } = loadRecord(dir);
    if (problem) this.log.warn(problem);
    this.record = { ...record, state: 'BOOT' };
    this.persist(this.record);
    this.log.info('agent started', { resumed_from: record.state, device: shortDeviceId(record.device_id) });
    while (!this.stopping) {
      let event: Event | null = null;
      try {
        event = await this.step();
      } catch (err) {
        // Nothing may end the loop unattended: log, wait, do the state's work again.
        this.log.error('unexpected failure', { state: this.record.state, error: (err as Error).message });
        await sleep(this.deps.clock, this.intervalMs, this.stopper.signal);
      }
      if (event && !this.stopping) this.apply(event);
    }
    await this.shutdown();
  }

  private apply(event: Event): void {
    const before = this.record;
    this.record = reduce(this.record, event);
    // An unchanged record (the same failure again, for days) is not rewritten: flash wears.
    // Nor is one whose only change is the time of an answered heartbeat, but once an hour.
    if (this.needsWrite(this.record)) this.persist(this.record);
    if (this.record.state !== before.state) this.log.info('state', { from: before.state, to: this.record.state, event: event.type });
  }

  private needsWrite(r: AgentRecord): boolean {
    const w = this.written;
    if (w === null || withoutBeatTime(r) !== withoutBeatTime(w)) return true;
    if (r.last_heartbeat === w.last_heartbeat) return false;
    return w.last_heartbeat === null || r.last_heartbeat === null || Date.parse(r.last_heartbeat) - Date.parse(w.last_heartbeat) >= HEARTBEAT_PERSIST_MS;
  }

  private persist(record: AgentRecord): void {
    try {
      saveRecord(this.config.state_dir, record);
      this.written = record;
    } catch (err) {
      // Keep running from memory; the next transition writes again.
      this.log.error('cannot persist the state', { error: (err as Error).message });
    }
  }

  private async step(): Promise<Event | null> {
    switch (this.record.state) {
      case 'BOOT': return { type: 'start' };
      case 'APP_INIT': return this.loadConfig();
      case 'PROVISION': return this.provision();
      case 'APP_RETRY': {
        const waitS = retryDelayS(this.record.failures, this.config.heartbeat_interval_s);
        this.log.info('retrying provisioning', { in_s: waitS, failures: this.record.failures });
        await sleep(this.deps.clock, waitS * 1000, this.stopper.signal);
        return this.stopping ? null : { type: 'retry' };
      }
      case 'TUNNEL_UP': return this.bringUp('tunnel_established');
      case 'TUNNEL_REBUILD': return this.bringUp('tunnel_rebuilt');
      case 'HEARTBEAT': return this.heartbeat();
    }
  }

  /** APP_INIT: the file is read again, so an operator can fix it (or drop in a new token) while it retries. */
  private async loadConfig(): Promise<Event | null> {
    try {
      const fresh = loadConfigFile(this.deps.configFile);
      if (fresh.state_dir !== this.config.state_dir || fresh.interface !== this.config.interface) {
        this.log.warn('state_dir and interface changes take effect at the next start');
        fresh.state_dir = this.config.state_dir;
        fresh.interface = this.config.interface;
      }
      this.config = fresh;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      this.log.error('configuration unusable; keeping the previous one', { error: err.message });
    }
    this.key = await deriveKey(this.config.hwid, this.config.server_salt);
    return { type: 'config_loaded' };
  }

  private async provision(): Promise<Event | null> {
    const key = this.key!;
    if (this.record.sealed_config !== null) {
      try {
        this.tunnelConfig = parsePayload(JSON.parse(await openSealed(key, this.record.sealed_config)));
        return { type: 'provisioned', fresh: false, sealed: this.record.sealed_config, deviceId: this.tunnelConfig.device_id };
      } catch (err) {
        this.log.warn('stored configuration cannot be decrypted: cleared, provisioning again', { error: (err as Error).message });
        return { type: 'stored_config_cleared', reason: `stored configuration unusable: ${(err as Error).message}` };
      }
    }
    try {
      const answer = await postJson(endpointUrl(this.config.server_url, 'api/v1/provision'),
        { token: this.config.token, hwid: this.config.hwid }, this.httpOptions());
      const sealed = (answer.json as { encrypted_config?: unknown } | undefined)?.encrypted_config;
      if (typeof sealed !== 'string') throw new Error('answer has no encrypted_config');
      this.tunnelConfig = parsePayload(JSON.parse(await openSealed(key, sealed)));
      this.log.info('provisioned', { device: shortDeviceId(this.tunnelConfig.device_id) });
      return { type: 'provisioned', fresh: true, sealed, deviceId: this.tunnelConfig.device_id };
    } catch (err) {
      if (this.stopping) return null;
      const reason = `provisioning failed: ${(err as Error).message}`;
      const hint = /token already used|token expired|invalid token/.test(reason) ? 'put a new registration token into the configuration file' : undefined;
      this.log.warn(reason, hint ? { hint } : {});
      return { type: 'provision_failed', reason };
    }
  }

  private async bringUp(done: 'tunnel_established' | 'tunnel_rebuilt'): Promise<Event | null> {
    try {
      this.tunnelTouched = true;
      await this.tunnel.up(this.tunnelConfig!);
    } catch (err) {
      this.log.error('tunnel could not be brought up; trying again', { error: (err as Error).message });
      await sleep(this.deps.clock, this.intervalMs, this.stopper.signal);
      return null;
    }
    this.log.info(done === 'tunnel_established' ? 'tunnel up' : 'tunnel rebuilt', { interface: this.config.interface });
    if (this.config.networks?.length) {
      for (const problem of (this.deps.forwarding ?? enableForwarding)(this.config.networks)) this.log.warn('cannot turn on forwarding for the networks behind the device', { problem });
    }
    // The first heartbeat of a new tunnel goes out once it has a handshake (or after one interval).
    this.nextHeartbeatAt = this.deps.clock.now() + this.intervalMs;
    await this.waitForHandshake(Math.min(this.intervalMs, this.deps.firstHandshakeWaitMs ?? 10_000));
    this.nextHeartbeatAt = this.deps.clock.now();
    this.firstBeatOfTunnel = true;
    return { type: done };
  }

  private async waitForHandshake(limitMs: number): Promise<void> {
    const until = this.deps.clock.now() + limitMs;
    while (!this.stopping && this.deps.clock.now() < until) {
      if ((await this.tunnel.inspect()).lastHandshake) return;
      await sleep(this.deps.clock, 250, this.stopper.signal);
    }
  }

  private async heartbeat(): Promise<Event | null> {
    const wait = this.nextHeartbeatAt - this.deps.clock.now();
    if (wait > 0) await sleep(this.deps.clock, wait, this.stopper.signal);
    if (this.stopping) return null;
    this.nextHeartbeatAt = this.deps.clock.now()
      + (this.firstBeatOfTunnel ? secondBeatDelayMs(this.intervalMs, (this.deps.random ?? Math.random)()) : this.intervalMs);
    this.firstBeatOfTunnel = false;
    const current = this.tunnelConfig!;
    const at = new Date(this.deps.clock.now()).toISOString();
    try {
      const status = await this.tunnel.inspect();
      const body = heartbeatBody(current.device_id, this.record.state, status, this.deps.clock.now(), false,
        { networks: this.config.networks, interval: this.config.heartbeat_interval_s });
      const answer = await this.sendHeartbeat(body);
      const verdict = judgeAnswer(current, this.record.forwards_hash, answer.json, status.present);
      if (!verdict.rebuild) return { type: 'heartbeat_answer', at, tunnelUp: body.tunnel_up, forwardsHash: verdict.forwardsHash, rebuild: false };
      this.log.info('rebuilding the tunnel', { reasons: verdict.reasons });
      const sealed = verdict.changed.length ? await seal(this.key!, JSON.stringify(verdict.next)) : undefined;
      this.tunnelConfig = verdict.next;
      return { type: 'heartbeat_answer', at, tunnelUp: body.tunnel_up, forwardsHash: verdict.forwardsHash, rebuild: true, sealed };
    } catch (err) {
      if (this.stopping) return null;
      this.log.warn('heartbeat failed', { error: (err as Error).message });
      return { type: 'heartbeat_failed', at, reason: `heartbeat failed: ${(err as Error).message}` };
    }
  }

  /**
   * A heartbeat; when the router refuses the configured networks (400
   * WGCP_DEVICE_NETWORKS_REFUSED) that is said once as an error and the same beat goes again
   * without them, so the tunnel still follows the router (a key rotation) while the
   * configuration waits to be fixed. The networks are sent again at every beat.
   */
  private async sendHeartbeat(body: HeartbeatBody): Promise<Answer> {
    const url = endpointUrl(this.config.server_url, 'api/v1/heartbeat');
    try {
      const answer = await postJson(url, body, this.httpOptions());
      if (body.networks && this.networksRefused !== null) {
        this.log.info('the router took the networks behind the device', { networks: body.networks });
        this.networksRefused = null;
      }
      return answer;
    } catch (err) {
      if (!(err instanceof RequestError) || err.code !== 'WGCP_DEVICE_NETWORKS_REFUSED' || !body.networks) throw err;
      if (this.networksRefused !== err.message) this.log.error('the router refused the networks in the configuration', { error: err.message, networks: body.networks });
      this.networksRefused = err.message;
      const { networks: _refused, ...rest } = body;
      return postJson(url, rest, this.httpOptions());
    }
  }

  private httpOptions(extra: Partial<HttpOptions> = {}): HttpOptions {
    return { clock: this.deps.clock, ca: this.config.ca, timeouts: this.deps.timeouts, signal: this.stopper.signal, ...extra };
  }

  /** SIGTERM: tell the server (one short attempt), then take the tunnel down. */
  private async shutdown(): Promise<void> {
    if (this.record.state === 'HEARTBEAT' && this.tunnelConfig) {
      try {
        const status = await this.tunnel.inspect();
        const body = heartbeatBody(this.tunnelConfig.device_id, this.record.state, status, this.deps.clock.now(), true);
        const send = () => postJson(endpointUrl(this.config.server_url, 'api/v1/heartbeat'), body,
          { clock: this.deps.clock, ca: this.config.ca, attempts: 1, timeouts: { connectMs: 2000, writeMs: 2000, readMs: 3000 } });
        // A throttled stop report (429) is sent once more when the router asks for a short
        // wait: a stop goes unseen otherwise, and a service stop can spare a few seconds.
        await send().catch(async (err: unknown) => {
          if (!(err instanceof RequestError) || err.status !== 429 || err.waitMs === undefined || err.waitMs > STOP_RETRY_MAX_MS) throw err;
          await sleep(this.deps.clock, err.waitMs);
          return send();
        });
      } catch (err) {
        this.log.warn('could not report the stop', { error: (err as Error).message });
      }
    }
    if (this.tunnelTouched) await this.tunnel.down().catch((err) => this.log.warn('tunnel teardown failed', { error: (err as Error).message }));
    // One write a stop: the time of the last heartbeat, held back by the hourly rule, is
    // kept exact for `status` and the next start.
    if (this.written === null || JSON.stringify(this.record) !== JSON.stringify(this.written)) this.persist(this.record);
    this.log.info('agent stopped', { state: this.record.state });
  }
}
