// A peer's .conf as a file to save: named after the peer (WireGuard apps take the file's
// name as the tunnel's name: at most 15 characters of [a-zA-Z0-9_=+.-]), and, for a peer
// that brought its own keys, a template built from what wgcpd knows, to be filled in.
import type { Peer, Server } from './types';

/** The peer's name as a tunnel name: other characters become "-", cut to 15; wgcp-peerN when nothing is left. */
export function tunnelFileName(peer: Pick<Peer, 'id' | 'name'>): string {
  // Accents dropped first ("ü" is "u"); what is left outside the set becomes "-".
  const safe = peer.name.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-zA-Z0-9_=+.-]+/g, '-').replace(/^[-.]+/, '').slice(0, 15).replace(/[-.]+$/, '');
  return `${safe || `wgcp-peer${peer.id}`}.conf`;
}

/** Saves text as a file with the given name (an <a download> on a blob: the server's own name would win). */
export function saveFile(name: string, body: Blob): void {
  const url = URL.createObjectURL(body);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function network4(cidr: string): string {
  const [addr, prefix] = cidr.split('/');
  const n = addr.split('.').reduce((v, p) => v * 256 + Number(p), 0);
  const size = 2 ** (32 - Number(prefix));
  const base = Math.floor(n / size) * size;
  return `${[24, 16, 8, 0].map((s) => Math.floor(base / 2 ** s) % 256).join('.')}/${prefix}`;
}

function network6(cidr: string): string {
  const [addr, prefixText] = cidr.split('/');
  const prefix = Number(prefixText);
  const [head, tail = ''] = addr.split('::');
  const parts = (s: string) => (s ? s.split(':') : []);
  const groups = [...parts(head), ...Array(8 - parts(head).length - parts(tail).length).fill('0'), ...parts(tail)].map((g) => parseInt(g, 16));
  const masked = groups.map((g, i) => {
    const keep = Math.max(0, Math.min(16, prefix - i * 16));
    return keep === 16 ? g : keep === 0 ? 0 : g & (0xffff << (16 - keep)) & 0xffff;
  });
  // Shortened as RFC 5952 would for a network: trailing zero groups become "::".
  let last = 8;
  while (last > 0 && masked[last - 1] === 0) last--;
  const text = masked.slice(0, last).map((g) => g.toString(16)).join(':');
  return `${last === 8 ? text : `${text}::`}/${prefix}`;
}

/** A .conf for a peer whose private key wgcpd does not hold: the keys to fill in are marked. */
export function confTemplate(peer: Peer, server: Server): string {
  const allowed = peer.allowInternet ? '0.0.0.0/0, ::/0'
    : [network4(server.address), ...(server.address6 ? [network6(server.address6)] : [])].join(', ');
  const lines = [
    '# A template made by the wgcp dashboard: wgcpd does not hold this peer\'s private key.',
    '# Put the private key that belongs to the public key below, then import the file.',
    `# This peer's public key: ${peer.publicKey}`,
    '[Interface]',
    'PrivateKey = <this peer\'s private key>',
    `Address = ${peer.ip}/32${peer.ip6 ? `, ${peer.ip6}/128` : ''}`,
    `DNS = ${server.dns}`,
    ...(server.mtu !== null ? [`MTU = ${server.mtu}`] : []),
    '',
    '[Peer]',
    `PublicKey = ${server.publicKey}`,
    '# wgcpd holds a preshared key for this peer that its API does not give out: ask the administrator for it.',
    'PresharedKey = <the preshared key>',
    `AllowedIPs = ${allowed}`,
    `Endpoint = ${server.endpoint}`,
    'PersistentKeepalive = 25',
  ];
  return lines.join('\n') + '\n';
}
