// Written by src/resources/page-types.ts from the resource descriptions (src/resources/*.ts):
// do not edit; `npm run build` writes it again.

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
  dataLimitGB: number;
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
