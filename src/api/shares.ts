// One-time config links. Operators make, list and revoke them; GET /share/{token} (no
// sign-in) opens one once. That answer is never cached or stored, sends no Referer on, and
// is framed by nothing.
import { tunnelFileName } from '../views/conf-name';
import type { App } from '../app';
import type { RequestContext, Route } from '../http/router';
import { created, noContent, ok, type Reply } from '../http/reply';
import { parseInput } from '../resources/describe';
import { SHARE } from '../resources/share';
import { SHARE_DEFAULT_HOURS, consumeShare, createShare, listShares, revokeShare, shareState } from '../ops/shares';
import { deadSharePageHtml, presentShare, sharePageHtml, deadShareText } from '../views/share-present';
import { shareLanguage } from '../views/share-words';
import { parseId } from './fields';
import { optionalBody } from './optional-body';
import { peerConfText, renderQrPng } from './peer-files';
import { shareBase } from './share-origin';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export const SHARE_PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store, max-age=0',
  Pragma: 'no-cache',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Robots-Tag': 'noindex',
};

const HTML = 'text/html; charset=utf-8';

async function openShare(app: App, ctx: RequestContext): Promise<Reply> {
  const token = ctx.params.token;
  const valid = TOKEN.test(token);
  // HEAD (a link preview, a checker) looks without spending the link.
  if (ctx.req.method === 'HEAD') {
    const state = valid ? shareState(app, token) : 'unknown';
    return { status: state === 'live' ? 200 : state === 'unknown' ? 404 : 410, headers: SHARE_PAGE_HEADERS };
  }
  const opening = valid ? await consumeShare(app, token, ctx.req.socket.remoteAddress ?? null) : { ok: false as const, reason: 'unknown' as const };
  if (!opening.ok) {
    const status = opening.reason === 'unknown' ? 404 : 410;
    if (!(ctx.req.headers.accept ?? '').includes('text/html')) return { status, json: { error: deadShareText(opening.reason), code: status === 404 ? 'WGCP_SHARE_LINK_UNKNOWN' : 'WGCP_SHARE_LINK_GONE' }, headers: SHARE_PAGE_HEADERS };
    return { status, raw: deadSharePageHtml(opening.reason, shareLanguage(ctx.req.headers['accept-language'])), type: HTML, headers: SHARE_PAGE_HEADERS };
  }
  const conf = peerConfText(app, opening.peer);
  const png = await renderQrPng(conf);
  const name = opening.peer.name || `peer ${opening.peer.id}`;
  return { status: 200, raw: sharePageHtml(name, tunnelFileName(opening.peer), conf, png, shareLanguage(ctx.req.headers['accept-language'])), type: HTML, headers: SHARE_PAGE_HEADERS };
}

export function shareRoutes(app: App): Route[] {
  return [
    {
      method: 'POST', path: '/api/peers/:id/share', auth: 'control', role: 'operator',
      doc: () => ({
        summary: "A one-time link to the peer's config and QR code, opened without signing in", body: 'Share', bodyOptional: true,
        answers: { 201: { description: 'made; the url holds the token, shown only here', shape: { type: 'object', properties: { id: { type: 'integer', format: 'int64' }, url: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } } } },
        errors: [[400, 'bad expiresInHours; or, with WGCP_PUBLIC_URL unset, a Host header that names no address or name of this router (`field` is `Host`): no link is made'],
          [404, 'peer not found'], [409, 'the peer has no stored private key']],
      }),
      async handler(ctx) {
        const body = await optionalBody(ctx);
        const hours = parseInput(SHARE, body, { now: app.now() }).expiresInHours ?? SHARE_DEFAULT_HOURS;
        // Before the link is made: a Host that names no address of this router makes none.
        const base = shareBase(app.config, ctx.req);
        const { share, token } = await createShare(app, ctx.actor!, parseId(ctx.params.id, 'peer'), hours);
        app.log.info('share link created', { peerID: share.peerId, shareID: share.id, expiresAt: share.expiresAt });
        return created({ id: share.id, url: `${base}/share/${token}`, expiresAt: share.expiresAt });
      },
    },
    {
      method: 'GET', path: '/api/peers/:id/shares', auth: 'control', role: 'operator',
      doc: () => ({ summary: "The peer's share links (never their tokens)", answers: { 200: { description: 'newest first', shape: ['Share'] } }, errors: [[404, 'peer not found']] }),
      handler(ctx) {
        const now = app.now().toISOString();
        return ok(listShares(app, parseId(ctx.params.id, 'peer')).map((s) => presentShare(s, now)));
      },
    },
    {
      method: 'DELETE', path: '/api/shares/:id', auth: 'control', role: 'operator',
      doc: () => ({ summary: 'Revoke a share link', answers: { 204: { description: 'revoked' } }, errors: [[404, 'no such link'], [409, 'used or revoked already']] }),
      async handler(ctx) {
        await revokeShare(app, ctx.actor!, parseId(ctx.params.id, 'share link'));
        app.log.info('share link revoked', { shareID: Number(ctx.params.id) });
        return noContent();
      },
    },
    {
      method: 'GET', path: '/share/:token', auth: 'none', handler: (ctx) => openShare(app, ctx),
      doc: () => ({
        summary: 'Open a one-time config link (no credentials): the QR code and the .conf, once; HEAD looks without spending it',
        answers: { 200: { description: 'the page', type: 'text/html' }, 404: { description: 'no such link' }, 410: { description: 'used, revoked or expired' } },
      }),
    },
  ];
}

