// The file name of a peer's .conf wherever wgcp hands one out (the page, a share link, mail,
// GET /api/peers/{id}/config): the peer's name as a tunnel name, since WireGuard apps take
// the file's name as the tunnel's (at most 15 characters of [a-zA-Z0-9_=+.-]); wgcp-peerN
// when nothing of the name is left. The page's web/src/conf-file.ts keeps the same rule.
export function tunnelFileName(peer: { id: number; name: string }): string {
  // Accents dropped first ("ü" is "u"); what is left outside the set becomes "-".
  const safe = peer.name.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-zA-Z0-9_=+.-]+/g, '-').replace(/^[-.]+/, '').slice(0, 15).replace(/[-.]+$/, '');
  return `${safe || `wgcp-peer${peer.id}`}.conf`;
}
