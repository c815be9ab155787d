// A one-time config link, described once: its record (a row of `share_links`), the body a
// create takes, what the API shows (never the token, which only the 201 answer's url holds,
// nor its hash) and the OpenAPI schema. The token, its hash and the spending are the store's
// (store/shares.ts); which peer may have one is the operation's (ops/shares.ts).
import type { Resource } from './describe';
import { readInt } from './read';

export const SHARE_DEFAULT_HOURS = 24;
export const SHARE_MAX_HOURS = 7 * 24;

export type ShareState = 'live' | 'used' | 'revoked' | 'expired';

export interface ShareRecord {
  id: number;
  peerId: number;
  /** The token's SHA-256 (hex): written once, matched by its own query, never read back with the record. */
  tokenHash?: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  createdBy: string;
  /** Input only: the hours the link lives (default 24). */
  expiresInHours?: number;
}

/** What the presenter is handed beside a link: the time now (a link past its end is expired). */
export interface ShareSight { now: string }

/** The one rule of a link's state (the list's `state`, HEAD's answer, the dead link's page). */
export const shareStateAt = (s: ShareRecord, now: string): ShareState =>
  s.usedAt ? 'used' : s.revokedAt ? 'revoked' : s.expiresAt <= now ? 'expired' : 'live';

const int = { type: 'integer', format: 'int64' };
const ts = { type: 'string', format: 'date-time' };
const nullableTs = { type: ['string', 'null'], format: 'date-time' };

export const SHARE: Resource<ShareRecord, ShareSight> = {
  name: 'Share',
  table: 'share_links',
  description: "A one-time link to a peer's config and QR code, opened without signing in; never its token",
  fields: {
    id: { column: 'id', schema: int },
    peerId: { json: 'peerID', column: 'peer_id', schema: int },
    tokenHash: { column: { name: 'token_hash', writeOnly: true }, seenBy: 'never' },
    createdAt: { column: 'created_at', schema: ts },
    expiresAt: { column: 'expires_at', schema: ts },
    usedAt: { column: 'used_at', schema: nullableTs },
    revokedAt: { column: 'revoked_at', schema: nullableTs },
    createdBy: { column: 'created_by', schema: { type: 'string', description: 'the name of who made it' } },
    expiresInHours: {
      seenBy: 'never', input: (b, f) => readInt(b, f, 1, SHARE_MAX_HOURS),
      schema: { type: 'integer', minimum: 1, maximum: SHARE_MAX_HOURS, default: SHARE_DEFAULT_HOURS, description: 'the hours the link lives' },
    },
  },
  derived: {
    state: { after: 'peerId', value: (s, k) => shareStateAt(s, k.now), schema: { enum: ['live', 'used', 'revoked', 'expired'] } },
  },
};
