// The API's records as the page reads them (see GET /api/openapi.json).
export interface Peer {
  id: number; serverID: number; name: string; email: string; ip: string; publicKey: string;
  allowAccess: number[]; allowInternet: boolean; enabled: boolean; disabledReason: string; disabledReasons: string[];
  dataLimitGB: number; currentDataUsageBytes: number; expiresAt: string | null; hasPrivateKey: boolean;
  createdAt: string; updatedAt: string;
}
export interface Server {
  id: number; name: string; endpoint: string; mode: 'forward' | 'standalone'; publicKey: string; interface: string;
  address: string; listenPort: number; dns: string; mtu: number | null; kernelState: string;
  kernelFailure: { reason: string; nextRetryAt: string } | null; peers?: Peer[]; createdAt: string; updatedAt: string;
}
export interface ServerStats {
  serverID: number; peerCount: number; webhookCount: number; enabledPeers: number; disabledPeers: number;
  onlinePeers: number; dataUsageBytes: number;
}
export interface Stats {
  totalServers: number; totalPeers: number; totalWebhooks: number; enabledPeers: number; disabledPeers: number;
  totalDataUsageBytes: number; totalDevices: number;
}
export interface Webhook {
  id: number; serverID: number; name: string; url: string; isEnabled: boolean; isGlobal: boolean; verifySSL: boolean;
  subscribedActions: number[]; template: string; defaultPayload: string; customBody: string; customHeaders: number[];
  secret: string; createdAt: string; updatedAt: string;
}
export interface Delivery {
  id: number; webhookID: number; deliveryID: number; event: string; attempt: number; outcome: string;
  httpStatus: number | null; error: string; durationMs: number | null; timestamp: string;
}
export interface Device {
  id: string; serverID: number; peerID: number; hwid: string; ip: string; suspended: boolean; status: string; state: string;
  tunnelUp: boolean | null; lastHandshake: string | null; lastSeenAt: string | null; lastSourceAddress: string | null;
  forwardsHash: string; provisionedAt: string; createdAt: string; updatedAt: string;
}
export interface Forward { id: number; deviceID: string; protocol: 'tcp' | 'udp'; listenPort: number; targetPort: number; createdAt: string }
export interface RegToken { token: string; serverID: number; state: 'unused' | 'used' | 'expired'; createdAt: string; expiresAt: string; usedAt: string | null; deviceID: string | null }
export interface Smtp {
  id?: number; enabled: boolean; server: string; port: number; useAuth: boolean; useTLS: boolean; username: string;
  password: string; fromEmail: string; fromName: string;
}
/** One peer of the event stream's usage message. */
export interface PeerUsage { id: number; serverID: number; currentDataUsageBytes: number; enabled: boolean; disabledReason: string; latestHandshake: number }

export interface Credential { id: number; kind: 'apikey' | 'token'; name: string; role: 'admin' | 'operator' | 'viewer'; createdAt: string; expiresAt: string | null; lastUsedAt: string | null }
export interface Share { id: number; peerID: number; state: 'live' | 'used' | 'revoked' | 'expired'; createdAt: string; expiresAt: string; usedAt: string | null; revokedAt: string | null; createdBy: string }
export interface AuditEntry {
  id: number; at: string; actor: { kind: string; id: number | null; name: string }; address: string | null; role: string | null;
  action: string; targetType: string; targetId: string | null; summary: Record<string, unknown>;
}
