// A peer's WireGuard .conf as text and as a QR code PNG holding exactly that text.
import { tunnelFileName } from '../views/conf-name';
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import type { PeerRecord } from '../store/peers';
import { renderPeerConf } from '../wg/conf';
import { peerFromPath } from './lookups';
import { resolverListens } from '../net/resolver-listening';

export function peerConfText(app: App, peer: PeerRecord): string {
  if (peer.privateKey === null) throw apiError('WGCP_PEER_NO_PRIVATE_KEY');
  const server = app.store.servers.get(peer.serverId)!;
  return renderPeerConf(server, { ...peer, privateKey: peer.privateKey }, (ip) => resolverListens(ip));
}

export function renderQrPng(text: string): Promise<Buffer> {
  // Loaded at the first QR code: about 8 MB of RSS a daemon that draws none never pays.
  const QRCode = require('qrcode') as typeof import('qrcode');
  return QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 6 });
}

export function peerFileRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/peers/:id/config', auth: 'control', role: 'operator',
      doc: () => ({
        summary: 'WireGuard .conf of a peer (500, naming the field, when a stored value holds a control character: refused, never printed)',
        answers: { 200: { description: '.conf text', type: 'text/plain', shape: { type: 'string' } } }, errors: [404],
      }),
      handler(ctx) {
        const peer = peerFromPath(app, ctx.params.id);
        return {
          status: 200,
          raw: peerConfText(app, peer),
          type: 'text/plain; charset=utf-8',
          headers: { 'Content-Disposition': `attachment; filename="${tunnelFileName(peer)}"`, 'Cache-Control': 'no-store' },
        };
      },
    },
    {
      method: 'GET', path: '/api/peers/:id/qrcode', auth: 'control', role: 'operator',
      doc: () => ({
        summary: 'QR code PNG of the .conf (500 as for the .conf when a stored value holds a control character)',
        answers: { 200: { description: 'PNG', type: 'image/png', shape: { type: 'string', contentMediaType: 'image/png' } } }, errors: [404],
      }),
      async handler(ctx) {
        const png = await renderQrPng(peerConfText(app, peerFromPath(app, ctx.params.id)));
        return { status: 200, raw: png, type: 'image/png', headers: { 'Cache-Control': 'no-store' } };
      },
    },
  ];
}
