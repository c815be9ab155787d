// The standby pair in the running daemon: the role (alone without a partner; otherwise
// standby until keepalived says MASTER), the journal hook on the change runner, the channel
// this router serves (WGCP_HA_LISTEN) and the follower of the partner, and keepalived's
// notify (`wgcp ha notify MASTER|BACKUP|FAULT` -> POST /api/ha/notify -> notify()).
//
// Interface (stable): startPair(app) -> PairControl; pairControlOf(app) for the API.
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type { App } from '../app';
import { apiError } from '../error-registry';
import { pairJournal } from '../ops/ha-journal';
import { promote } from '../ops/ha-follow';
import type { HaPosition } from '../store/ha';
import { createChannelServer } from './channel';
import { readHaKey, type HaConfig } from '../ha-config';
import { Follower } from './follower';
import { watchPartner } from './partner-watch';
import { attachPair, Pair, type HaRole, type PartnerStatus } from './pair';

const run = promisify(execFile);

export type NotifyState = 'MASTER' | 'BACKUP' | 'FAULT';

export interface HaStatus { role: HaRole; epoch: number; sequence: number; partner: PartnerStatus | null }

export interface PairControl {
  pair: Pair;
  /** The channel's port (null when alone). */
  channelPort: number | null;
  status(): HaStatus;
  notify(state: NotifyState): Promise<HaStatus>;
  close(): Promise<void>;
}

// The control is one of the App's services (src/services.ts); this keeps the stable interface.
export const pairControlOf = (app: App): PairControl | undefined => app.services.pairControl ?? undefined;

/** True when one of this host's interfaces holds `address` (with or without its prefix length), by `ip -o addr`. */
export async function holdsAddress(address: string): Promise<boolean> {
  const bare = address.split('/')[0].toLowerCase();
  const { stdout } = await run('ip', ['-o', 'addr', 'show'], { timeout: 5000 });
  return stdout.split('\n').some((line) => {
    const m = /\sinet6?\s+([0-9a-fA-F.:]+)\//.exec(line);
    return m !== null && m[1].toLowerCase() === bare;
  });
}

function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => { server.off('error', reject); resolve((server.address() as AddressInfo).port); });
  });
}

/** Wires the pair into the daemon from app.config.ha (a key file too open stops the start). */
export async function startPair(app: App): Promise<PairControl> {
  const config: HaConfig | null = app.config.ha ?? null;
  const key = config ? readHaKey(config.keyFile) : null;
  const pair = new Pair(config ? config.partner.href.replace(/\/$/, '') : null, config?.ackWaitMs ?? 0, () => app.store.ha.state(), (seq) => app.store.ha.changesAfter(seq));
  attachPair(app, pair);
  app.runner.setJournal(pairJournal(app.store, pair, {
    journaling: config !== null, keep: config?.journalKeep ?? 0, usageEveryMs: (config?.usageEveryS ?? 0) * 1000, now: () => app.now().getTime(),
  }));
  const status = (): HaStatus => {
    const at = app.store.ha.state();
    return { role: pair.role, epoch: at.epoch, sequence: at.seq, partner: pair.partnerStatus() };
  };
  if (!config || !key) {
    const alone: PairControl = {
      pair, channelPort: null, status,
      notify: () => Promise.reject(apiError('WGCP_HA_NOT_PAIRED')),
      close: async () => {},
    };
    app.services.pairControl = alone;
    return alone;
  }
  const channel = createChannelServer(app, pair, key);
  const channelPort = await listen(channel, config.listen.host, config.listen.port);
  app.log.info('the standby channel is listening', { host: config.listen.host, port: channelPort, partner: pair.partnerUrl });
  const follower = new Follower(app, pair, key, config.partner);
  pair.onRole((role) => { if (role === 'standby') follower.start(); });
  follower.start();

  let notifying: Promise<unknown> = Promise.resolve();
  // Two primaries met (partner-watch.ts): the earlier line yields, in turn with keepalived's notices.
  const watch = watchPartner(app, pair, key, config.partner, (theirs) => {
    const p = notifying.then(() => {
      if (pair.role !== 'primary') return;
      const own = app.store.ha.currentEpoch();
      app.log.warn('two primaries: the partner\'s line is later, this router becomes standby and follows it', { epoch: own.epoch, partnerEpoch: theirs.epoch });
      pair.setRole('standby');
    });
    notifying = p.catch(() => {});
    return p;
  });
  const notifyNow = async (state: NotifyState): Promise<HaStatus> => {
    if (state === 'MASTER') {
      if (pair.role === 'primary') return status();
      if (config.virtualAddress && !(await holdsAddress(config.virtualAddress))) {
        throw apiError('WGCP_HA_NO_VIRTUAL_ADDRESS', { address: config.virtualAddress, role: pair.role });
      }
      // Nothing is followed any more: the last answer applied is what this router holds.
      await follower.stop();
      const at: HaPosition = await promote(app, pair.partnerEpoch);
      pair.setRole('primary');
      app.log.warn('this router is now the primary', { epoch: at.epoch, seq: at.seq });
      for (const hook of pair.promotedHooks) {
        try {
          await hook(at);
        } catch (err) {
          app.log.error('a promotion hook failed', { error: err instanceof Error ? err.message : String(err) });
        }
      }
      return status();
    }
    // BACKUP follows the primary; FAULT stops acting as primary (and follows whoever is).
    if (pair.role === 'primary') app.log.warn('this router stops acting as primary', { state });
    pair.setRole('standby');
    return status();
  };
  const control: PairControl = {
    pair, channelPort, status,
    // keepalived may call notify again before the last one ended: one at a time, in order.
    notify: (state) => {
      const p = notifying.then(() => notifyNow(state));
      notifying = p.catch(() => {});
      return p;
    },
    async close() {
      watch.stop();
      await follower.stop();
      await new Promise<void>((resolve) => { channel.close(() => resolve()); channel.closeAllConnections(); });
    },
  };
  app.services.pairControl = control;
  return control;
}
