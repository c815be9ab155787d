// One-time config links: an operator makes one for a peer (a random 32-byte token, shown
// once, kept as its SHA-256), lists and revokes them; opening one spends it and hands the
// peer's config over. Each is a change of the runner, audited in its own transaction.
import crypto from 'node:crypto';
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Actor } from '../store/audit';
import type { ShareRecord } from '../store/shares';
import type { PeerRecord } from '../store/peers';
import type { Store } from '../store/store';
import { badField } from './field-error';

import { SHARE_DEFAULT_HOURS, SHARE_MAX_HOURS, shareStateAt } from '../resources/share';

export { SHARE_DEFAULT_HOURS, SHARE_MAX_HOURS };

export interface NewShare { share: ShareRecord; token: string }

export function createShare(app: App, actor: Actor, peerId: number, hours: number = SHARE_DEFAULT_HOURS): Promise<NewShare> {
  if (!Number.isInteger(hours) || hours < 1 || hours > SHARE_MAX_HOURS) throw badField('expiresInHours', `must be between 1 and ${SHARE_MAX_HOURS}`);
  const now = app.now();
  const token = crypto.randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + hours * 3_600_000).toISOString();
  return app.runner.run('share.create', (store) => {
    const peer = store.peers.get(peerId);
    if (!peer) throw apiError('WGCP_PEER_NOT_FOUND');
    if (peer.privateKey === null) throw apiError('WGCP_SHARE_NO_PRIVATE_KEY');
    return {
      commit: ({ store }) => ({ share: store.shares.create(peerId, token, now.toISOString(), expiresAt, actor.name), token }),
      audit: ({ share }) => ({ targetType: 'peer', targetId: peerId, summary: { shareID: share.id, expiresAt } }),
    };
  }, { actor });
}

export function listShares(app: App, peerId: number): ShareRecord[] {
  if (!app.store.peers.get(peerId)) throw apiError('WGCP_PEER_NOT_FOUND');
  return app.store.shares.listOfPeer(peerId);
}

/** 404 when there is no such link; 409 when it was used or revoked already. */
export function revokeShare(app: App, actor: Actor, id: number): Promise<void> {
  const now = app.now().toISOString();
  return app.runner.run('share.revoke', (store) => {
    const share = store.shares.get(id);
    if (!share) throw apiError('WGCP_SHARE_NOT_FOUND');
    return {
      commit: ({ store }) => {
        if (!store.shares.revoke(id, now)) throw apiError('WGCP_SHARE_CLOSED', { how: share.usedAt ? 'used' : 'revoked' });
      },
      audit: () => ({ targetType: 'peer', targetId: share.peerId, summary: { shareID: id } }),
    };
  }, { actor });
}

export type ShareOpening = { ok: true; share: ShareRecord; peer: PeerRecord } | { ok: false; reason: 'unknown' | 'used' | 'revoked' | 'expired' };

/** Spends a link: of two opens of the same link exactly one gets the peer. */
export function consumeShare(app: App, token: string, address: string | null): Promise<ShareOpening> {
  const now = app.now().toISOString();
  const live = app.store.shares.findByToken(token);
  // The audit row names who made the link, as the link's own actor, and where it was opened from.
  const actor: Actor = { kind: 'share', id: live?.id ?? null, name: live?.createdBy ?? '', role: null, address };
  return app.runner.run<ShareOpening>('share.use', () => ({
    commit: ({ store }) => {
      const share = store.shares.consume(token, now);
      if (share === null) return { ok: false, reason: deadReason(store, token, now) };
      return { ok: true, share, peer: store.peers.get(share.peerId)! };
    },
    // Only a link that was spent is a change: a dead one opened again changes nothing.
    audit: (o) => (o.ok ? { targetType: 'peer', targetId: o.share.peerId, summary: { shareID: o.share.id } } : null),
  }), { actor });
}

/** Why a link cannot be opened (without spending it): for HEAD and for the error page. */
export function shareState(app: App, token: string): 'live' | 'unknown' | 'used' | 'revoked' | 'expired' {
  const now = app.now().toISOString();
  const share = app.store.shares.findByToken(token);
  return share ? shareStateAt(share, now) : 'unknown';
}

function deadReason(store: Store, token: string, now: string): 'unknown' | 'used' | 'revoked' | 'expired' {
  const share = store.shares.findByToken(token);
  if (!share) return 'unknown';
  // Live when read again: another open spent it in between.
  const state = shareStateAt(share, now);
  return state === 'live' ? 'used' : state;
}
