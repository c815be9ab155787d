// Written by src/resources/page-types.ts from the resource descriptions (src/resources/*.ts):
// do not edit; `npm run build` writes it again.

/** schema Server */
export interface Server {
  id: number;
  name: string;
  /** host:port */
  endpoint: string;
  mode: 'forward' | 'standalone';
  publicKey: string;
  interface: string;
  /** server tunnel address with prefix, e.g. 10.1.0.1/24 */
  address: string;
  /** server IPv6 tunnel address with prefix (RFC 5952), e.g. fd12:3456:789a:1::1/64; null: IPv4 only; default: a unique local /64 */
  address6: string | null;
  listenPort: number;
  /** the clients' DNS by default: "auto" (default; the tunnel address when a resolver listens there on port 53, else none), "" (none) or addresses separated by commas */
  dns: string;
  /** the clients' MTU by default; null: none in the .conf */
  mtu: number | null;
  /** what clients route into the tunnel by default: "full", "split" (the server's networks) or prefixes; null (default): full for peers with allowInternet, split otherwise */
  clientAllowedIPs: 'full' | 'split' | string[] | null;
  /** the clients' keepalive by default, seconds; 0: off; default 25 */
  persistentKeepalive: number;
  /** the lanAccess a new peer gets when it does not say: "lan", prefixes of the router's networks, or [] (none, the default) */
  lanAccess: 'lan' | string[];
  /** up in the kernel, failed (see kernelFailure; retried), or off (no kernel backend) */
  kernelState: 'up' | 'failed' | 'off';
  kernelFailure: {
    reason: string;
    since: string;
    attempts: number;
    nextRetryAt: string;
  } | null;
  /** the reconciler's last repair of this server's part of the kernel, kept across restarts (docs/kernel.md, "Drift"); null: none yet */
  lastKernelRepair: {
    at: string;
    repairs: number;
    kinds: Record<string, number>;
  } | null;
  peers?: Peer[];
  webhooks?: Webhook[];
  createdAt: string;
  updatedAt: string;
}

/** schema Peer */
export interface Peer {
  id: number;
  serverID: number;
  name: string;
  email: string;
  ip: string;
  /** the peer IPv6 address, a /128 of the server prefix; null when the server has none */
  ip6: string | null;
  publicKey: string;
  allowAccess: number[];
  allowInternet: boolean;
  enabled: boolean;
  /** the first of disabledReasons, or "" */
  disabledReason: '' | 'admin' | 'suspended' | 'data_limit' | 'schedule';
  /** every reason the peer is off; each is lifted only by its owner */
  disabledReasons: ('admin' | 'suspended' | 'data_limit' | 'schedule')[];
  /** the monthly limit in GB (2^30 bytes), 0 for none; a limit set in tenths (dataLimitGiB) reads rounded up */
  dataLimitGB: number;
  /** outside the contract: the same limit with one decimal (1.5); a body sets it or dataLimitGB (docs/api.md) */
  dataLimitGiB?: number;
  currentDataUsageBytes: number;
  expiresAt: string | null;
  /** weekly windows of access in an IANA time zone; outside them the peer is off with reason "schedule". null: always on */
  schedule: {
    /** IANA time zone such as Europe/Berlin (shown in its canonical spelling) */
    timezone: string;
    windows: {
      /** the local days the window starts on */
      days: ('mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun')[];
      /** local time the window opens */
      from: string;
      /** local time it closes; at or before `from` it runs into the next day */
      to: string;
    }[];
  } | null;
  /** shaping of what the router sends the peer, Mbit/s; null: no limit */
  downloadLimitMbps: number | null;
  /** shaping of what the peer sends the router, Mbit/s; null: no limit */
  uploadLimitMbps: number | null;
  /** prefixes (IPv4 and IPv6) behind the peer, routed to it: in its AllowedIPs on the server and routed through the interface; none may overlap a server subnet, another peer's networks or the router's own networks, nor be a default route */
  networks: string[];
  /** which of the router's own networks and addresses the peer and its networks may open connections to: "lan" (all), prefixes inside them, or [] (none); a new peer that leaves it out gets its server's lanAccess; allowInternet does not open them */
  lanAccess: 'lan' | string[];
  /** who outside the tunnels may open connections to the peer and its networks: "lan" (hosts of the router's networks), source prefixes, or [] (none, the default); replies and port forwards pass whatever it says */
  reachableFrom: 'lan' | string[];
  /** the DNS servers in this peer's .conf; []: none; null: the server's dns */
  dns: string[] | null;
  /** what this client routes into the tunnel: "full", "split" or prefixes; null: the server's default */
  clientAllowedIPs: 'full' | 'split' | string[] | null;
  /** this client's keepalive, seconds; 0: off; null: the server's */
  persistentKeepalive: number | null;
  /** this client's MTU; null: the server's */
  mtu: number | null;
  hasPrivateKey: boolean;
  createdAt: string;
  updatedAt: string;
}

/** schema Device */
export interface Device {
  /** the device's id in routes: its peer's id (a device is a peer of its server) */
  id: number;
  /** the first 8 characters of the device_id, shown to every role */
  uuidPrefix: string;
  /** the device contract's device_id, a credential (the heartbeat answers the device's keys to whoever sends it): shown to admins only */
  uuid?: string;
  serverID: number;
  peerID: number;
  hwid: string;
  ip: string;
  suspended: boolean;
  status: string;
  state: string;
  tunnelUp: boolean | null;
  lastHandshake: string | null;
  lastSeenAt: string | null;
  lastSourceAddress: string | null;
  forwardsHash: string;
  /** seconds between the agent's heartbeats, as its last heartbeat said (`interval`); null: it never said */
  heartbeatIntervalS: number | null;
  provisionedAt: string;
  createdAt: string;
  updatedAt: string;
}

/** schema PortForward */
export interface PortForward {
  id: number;
  /** the device's id */
  deviceID: number;
  protocol: 'tcp' | 'udp';
  /** the router's port; unique per protocol on the router */
  listenPort: number;
  /** the device's port; defaults to listenPort */
  targetPort: number;
  createdAt: string;
}

/** schema Webhook */
export interface Webhook {
  id: number;
  serverID: number;
  name: string;
  /** whole for admins; other roles see its scheme and host, the rest "********" (e.g. https://hooks.slack.com/********) */
  url: string;
  isEnabled: boolean;
  isGlobal: boolean;
  verifySSL: boolean;
  subscribedActions: number[];
  template: 'default' | 'slack' | 'discord' | 'custom';
  /** other roles than admin see "********" when set */
  defaultPayload: string;
  /** other roles than admin see "********" when set */
  customBody: string;
  /** UTF-8 of a JSON object of header names to values; other roles than admin see each value as "********" */
  customHeaders: number[];
  /** write-only; shown as "********" when set */
  secret: string;
  createdAt: string;
  updatedAt: string;
}

/** schema Credential */
export interface Credential {
  id: number;
  kind: 'apikey' | 'token';
  /** default: the kind and the time it was made */
  name: string;
  /** default admin */
  role: 'admin' | 'operator' | 'viewer';
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  /** access tokens only: the days it lives; left out: it never ends */
  expiresInDays?: number;
}

/** schema Share */
export interface Share {
  id: number;
  peerID: number;
  state: 'live' | 'used' | 'revoked' | 'expired';
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  /** the name of who made it */
  createdBy: string;
  /** the hours the link lives */
  expiresInHours?: number;
}

/** schema RegistrationToken */
export interface RegistrationToken {
  token: string;
  serverID: number;
  state: 'unused' | 'used' | 'expired';
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  /** the id of the device that used it; null while unused or once that device is gone */
  deviceID: number | null;
}
