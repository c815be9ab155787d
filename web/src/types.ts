// The API's records as the page reads them (GET /api/openapi.json). Those with a resource
// description (src/resources/) are written from it into types.generated.ts and only re-exported
// here; the rest are written by hand, and held to the API by test/web-types.test.ts: every field
// a real wgcpd answers with, and every property of the OpenAPI schema named beside each
// interface, must be declared here.

import type { Credential, Device, Peer, PortForward, RegistrationToken, Server, Share, Webhook } from './types.generated';

export type { Credential, Device, Peer, PortForward, RegistrationToken, Server, Share, Webhook };
export type RegToken = RegistrationToken;
export type Forward = PortForward;
export type Schedule = NonNullable<Peer['schedule']>;
export type ScheduleWindow = Schedule['windows'][number];
/** answer of GET /api/servers/{id}/stats */
export interface ServerStats {
  serverID: number; peerCount: number; webhookCount: number; enabledPeers: number; disabledPeers: number;
  onlinePeers: number; dataUsageBytes: number;
}
/** answer of GET /api/stats */
export interface Stats {
  totalServers: number; totalPeers: number; totalWebhooks: number; enabledPeers: number; disabledPeers: number;
  totalDataUsageBytes: number; totalDevices: number;
}
/** schema Delivery */
export interface Delivery {
  id: number; webhookID: number; deliveryID: number | null; event: string; attempt: number; outcome: string;
  httpStatus: number | null; error: string; durationMs: number | null; timestamp: string;
}
/** schema SMTPSettings */
export interface Smtp {
  id?: number; enabled: boolean; server: string; port: number; useAuth: boolean; useTLS: boolean; username: string;
  password: string; fromEmail: string; fromName: string;
}
/** schema Health (GET /healthz): read defensively, fields come and go with the daemon's version */
export interface Health {
  status?: 'ok' | 'degraded'; reasons?: string[]; kernel?: 'on' | 'off'; kernelReason?: string; version?: string;
  failures?: { serverID: number; interface: string; reason: string; since: string; attempts: number; nextRetryAt: string }[];
  failingRepairs?: { kind: 'peer' | 'link' | 'nft' | 'ipv6' | 'shaping'; serverID: number | null; interface: string | null; reason: string; since: string; attempts: number; nextRetryAt: string }[];
}
/** answer of GET /api/peers/{id}/usage */
export interface UsageSeries { step: '5m' | '1h' | '1d'; points: { t: string; rxBytes: number; txBytes: number }[] }
/** answer of GET /api/session */
export interface SessionState { signedIn: boolean; createdAt?: string; lastSeenAt?: string; expiresAt?: string; idleExpiresAt?: string; role?: 'admin' | 'operator' | 'viewer'; name?: string; kind?: string; credentialID?: number | null; twoFactor?: boolean | null; subject?: string | null; email?: string | null; singleSignOn?: boolean; keySignIn?: boolean }

/** a session of GET /api/sessions */
export interface SignedIn { id: number; kind: 'person' | 'apikey' | 'token'; name: string; role: 'admin' | 'operator' | 'viewer'; subject: string | null; email: string | null; credentialID: number | null; createdAt: string; lastSeenAt: string; expiresAt: string }

/** One peer of the event stream's usage message. */
export interface PeerUsage { id: number; serverID: number; currentDataUsageBytes: number; enabled: boolean; disabledReason: string; latestHandshake: number }

/** an entry of GET /api/audit */
export interface AuditEntry {
  id: number; at: string; actor: { kind: string; id: number | null; name: string }; address: string | null; role: string | null;
  action: string; targetType: string; targetId: string | null; summary: Record<string, unknown>;
}
