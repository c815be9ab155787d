// One-time config links: an operator makes one for a peer (a random 32-byte token, shown
// once, kept as its SHA-256), lists and revokes them; opening one spends it and hands the
// peer's config over. Each of these writes its audit row in the same transaction.
import crypto from 'node:crypto';
import createError from 'http-errors';
import type { App } from '../app';
import type { Actor } from '../store/audit';
import type { ShareRecord } from '../store/shares';
import type { PeerRecord } from '../store/peers';
import { badField } from './field-error';

export const SHARE_DEFAULT_HOURS = 24;
export const SHARE_MAX_HOURS = 7 * 24;

export interface NewShare { share: ShareRecord; token: string }

export function createShare(app: App, actor: Actor, peerId: number, hours: number = SHARE_DEFAULT_HOURS): NewShare {
  if (!Number.isInteger(hours) || hours < 1 || hours > SHARE_MAX_HOURS) throw badField('expiresInHours', `must be between 1 and ${SHARE_MAX_HOURS}`);
  const now = app.now();
  const token = crypto.randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + hours * 3_600_000).toISOString();
  const share = app.store.tx(() => {
    const peer = app.store.peers.get(peerId);
    if (!peer) throw createError(404, 'peer not found');
    if (peer.privateKey === null) throw createError(409, 'no private key is stored for this peer: it has no config to share');
    const made = app.store.shares.create(peerId, token, now.toISOString(), expiresAt, actor.name);
    app.store.audit.append({ at: now.toISOString(), actor, action: 'share.create', targetType: 'peer', targetId: peerId, summary: { shareID: made.id, expiresAt } });
    return made;
  });
  return { share, token };
}

export function listShares(app: App, peerId: number): ShareRecord[] {
  if (!app.store.peers.get(peerId)) throw createError(404, 'peer not found');
  return app.store.shares.listOfPeer(peerId);
}

/** 404 when there is no such link; 409 when it was used or revoked already. */
export function revokeShare(app: App, actor: Actor, id: number): void {
  const now = app.now().toISOString();
  app.store.tx(() => {
    const share = app.store.shares.get(id);
    if (!share) throw createError(404, 'share link not found');
    if (!app.store.shares.revoke(id, now)) throw createError(409, `share link was ${share.usedAt ? 'used' : 'revoked'} already`);
    app.store.audit.append({ at: now, actor, action: 'share.revoke', targetType: 'peer', targetId: share.peerId, summary: { shareID: id } });
  });
}

export type ShareOpening = { ok: true; share: ShareRecord; peer: PeerRecord } | { ok: false; reason: 'unknown' | 'used' | 'revoked' | 'expired' };

/** Spends a link: of two opens of the same link exactly one gets the peer. */
export function consumeShare(app: App, token: string, address: string | null): ShareOpening {
  const now = app.now().toISOString();
  return app.store.tx((): ShareOpening => {
    const share = app.store.shares.consume(token, now);
    if (share === null) return { ok: false, reason: deadReason(app, token, now) };
    const peer = app.store.peers.get(share.peerId)!;
    app.store.audit.append({ at: now, actor: { kind: 'share', id: share.id, name: share.createdBy, role: null, address }, action: 'share.use', targetType: 'peer', targetId: share.peerId, summary: { shareID: share.id } });
    return { ok: true, share, peer };
  });
}

/** Why a link cannot be opened (without spending it): for HEAD and for the error page. */
export function shareState(app: App, token: string): 'live' | 'unknown' | 'used' | 'revoked' | 'expired' {
  const now = app.now().toISOString();
  const share = app.store.shares.findByToken(token);
  if (share && !share.usedAt && !share.revokedAt && share.expiresAt > now) return 'live';
  return deadReason(app, token, now);
}

function deadReason(app: App, token: string, now: string): 'unknown' | 'used' | 'revoked' | 'expired' {
  const share = app.store.shares.findByToken(token);
  if (!share) return 'unknown';
  if (share.usedAt) return 'used';
  if (share.revokedAt) return 'revoked';
  return share.expiresAt <= now ? 'expired' : 'used';
}
