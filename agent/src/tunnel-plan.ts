// What the tunnel is, as text and argument lists: pure, so it is tested without a kernel.
// Keys arrive as 64 hex characters (contract) and `wg` wants base64 of the same 32 bytes.
import { splitList, type TunnelConfig } from './payload';

export const KEEPALIVE_S = 25;
/** Routing table and firewall mark of a full tunnel, as wg-quick uses them. */
export const FULL_TUNNEL_TABLE = '51820';

export interface Command { cmd: 'ip' | 'wg' | 'wireguard-go'; args: string[] }

export const hexToBase64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');

const isV6 = (cidr: string): boolean => cidr.includes(':');
const isDefault = (cidr: string): boolean => /^(0\.0\.0\.0|::)\/0$/.test(cidr);
const withPrefix = (ip: string): string => (ip.includes('/') ? ip : `${ip}/${isV6(ip) ? 128 : 32}`);

/** Everything the tunnel routes: the contract's allowed_ips and, on a dual-stack server, allowed_ips6, without repeats. */
export function allowedList(cfg: Pick<TunnelConfig, 'allowed_ips' | 'allowed_ips6'>): string[] {
  return [...new Set([...splitList(cfg.allowed_ips), ...splitList(cfg.allowed_ips6 ?? '')])];
}

/** The families whose default route goes through the tunnel (full tunnel). */
export function fullTunnelFamilies(cfg: Pick<TunnelConfig, 'allowed_ips' | 'allowed_ips6'>): ('-4' | '-6')[] {
  return [...new Set(allowedList(cfg).filter(isDefault).map((c) => (isV6(c) ? '-6' : '-4') as '-4' | '-6'))];
}

/** The `wg setconf` text. */
export function wgConfText(cfg: TunnelConfig): string {
  const full = fullTunnelFamilies(cfg).length > 0;
  return [
    '[Interface]',
    `PrivateKey = ${hexToBase64(cfg.private_key)}`,
    ...(full ? [`FwMark = ${FULL_TUNNEL_TABLE}`] : []),
    '',
    '[Peer]',
    `PublicKey = ${hexToBase64(cfg.server_pub)}`,
    `PresharedKey = ${hexToBase64(cfg.preshared_key)}`,
    `AllowedIPs = ${allowedList(cfg).join(', ')}`,
    `Endpoint = ${cfg.endpoint}`,
    `PersistentKeepalive = ${KEEPALIVE_S}`,
    '',
  ].join('\n');
}

/**
 * Commands that configure an existing, empty link and route the allowed addresses into it.
 * `confFile` holds wgConfText(cfg) in a private file (Node's child stdin is a socket, which
 * `wg` cannot open as /dev/stdin), so keys never appear in an argument list.
 */
export function upCommands(ifname: string, cfg: TunnelConfig, confFile: string): Command[] {
  const cmds: Command[] = [
    { cmd: 'wg', args: ['setconf', ifname, confFile] },
    { cmd: 'ip', args: ['address', 'add', withPrefix(cfg.internal_ip), 'dev', ifname] },
    ...(cfg.internal_ip6 ? [{ cmd: 'ip' as const, args: ['address', 'add', withPrefix(cfg.internal_ip6), 'dev', ifname] }] : []),
    { cmd: 'ip', args: ['link', 'set', 'up', 'dev', ifname] },
  ];
  for (const cidr of allowedList(cfg)) {
    const family = isV6(cidr) ? '-6' : '-4';
    // A full tunnel keeps the route to the endpoint: marked (encrypted) packets use the main
    // table, everything else the tunnel's table.
    if (isDefault(cidr)) {
      cmds.push(
        { cmd: 'ip', args: [family, 'route', 'replace', cidr, 'dev', ifname, 'table', FULL_TUNNEL_TABLE] },
        { cmd: 'ip', args: [family, 'rule', 'add', 'not', 'fwmark', FULL_TUNNEL_TABLE, 'table', FULL_TUNNEL_TABLE] },
        { cmd: 'ip', args: [family, 'rule', 'add', 'table', 'main', 'suppress_prefixlength', '0'] },
      );
    } else {
      cmds.push({ cmd: 'ip', args: [family, 'route', 'replace', withPrefix(cidr), 'dev', ifname] });
    }
  }
  return cmds;
}

/** Policy rules a full tunnel added; removed on teardown (routes go with the link). */
export function fullTunnelRuleDeletes(family: '-4' | '-6'): Command[] {
  return [
    { cmd: 'ip', args: [family, 'rule', 'del', 'not', 'fwmark', FULL_TUNNEL_TABLE, 'table', FULL_TUNNEL_TABLE] },
    { cmd: 'ip', args: [family, 'rule', 'del', 'table', 'main', 'suppress_prefixlength', '0'] },
  ];
}

/** `wg show <if> latest-handshakes`: the newest handshake over all peers, null when never. */
export function parseLatestHandshake(text: string): Date | null {
  let newest = 0;
  for (const line of text.split('\n')) {
    const secs = Number(line.trim().split(/\s+/)[1]);
    if (Number.isFinite(secs) && secs > newest) newest = secs;
  }
  return newest > 0 ? new Date(newest * 1000) : null;
}

/** A tunnel counts as up while its last handshake is younger than WireGuard's 180 s reject time. */
export function isHandshakeFresh(last: Date | null, nowMs: number): boolean {
  return last !== null && nowMs - last.getTime() < 180_000;
}
