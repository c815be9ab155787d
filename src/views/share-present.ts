// Share links as the API shows them (never the token, which only the 201 answer's url
// holds), and the page a link opens: the QR code and the .conf, in one answer with no
// further request, since the link is dead once it is opened.
import type { ShareRecord } from '../store/shares';

export function presentShare(s: ShareRecord, now: string) {
  const state = s.usedAt ? 'used' : s.revokedAt ? 'revoked' : s.expiresAt <= now ? 'expired' : 'live';
  return { id: s.id, peerID: s.peerId, state, createdAt: s.createdAt, expiresAt: s.expiresAt, usedAt: s.usedAt, revokedAt: s.revokedAt, createdBy: s.createdBy };
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const frame = (title: string, body: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>
<style>/* The dashboard's look (web/src/style.css): its colours, font, cards and buttons. */
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Ubuntu,sans-serif;background:#f6f7f9;color:#1b1f24;margin:0}
main{max-width:36rem;margin:2rem auto;padding:1rem 1.2rem;background:#fff;border:1px solid #d3d8de;border-radius:8px}
h1{font-size:1.6rem;margin:.2rem 0 1rem;overflow-wrap:anywhere}h2{font-size:1.2rem;margin:1.5rem 0 .6rem}
img{display:block;width:100%;max-width:24rem;image-rendering:pixelated;background:#fff;border-radius:6px}
a.button{display:inline-flex;align-items:center;min-height:2.5rem;padding:.4rem 1rem;background:#1f5f8b;color:#fff;border-radius:6px;text-decoration:none}
:focus-visible{outline:3px dashed #2563eb;outline-offset:3px}
pre{white-space:pre-wrap;background:#f3f4f6;padding:.75rem;border-radius:6px}</style></head>
<body><main>${body}</main></body></html>`;

/** The one-time page: scan the QR code with the WireGuard app, or download the .conf. */
export function sharePageHtml(peerName: string, fileName: string, conf: string, qrPng: Buffer): string {
  const confUrl = `data:text/plain;charset=utf-8;base64,${Buffer.from(conf, 'utf8').toString('base64')}`;
  return frame(`WireGuard config: ${peerName}`, `
<h1>WireGuard config for ${escapeHtml(peerName)}</h1>
<p><strong>This link worked once and is now used up.</strong> Save the config or scan the code before you leave this page.</p>
<h2>On a phone</h2>
<p>In the WireGuard app, add a tunnel from a QR code and scan this:</p>
<img alt="QR code of the WireGuard config" src="data:image/png;base64,${qrPng.toString('base64')}">
<h2>On a computer</h2>
<p><a class="button" download="${escapeHtml(fileName)}" href="${confUrl}">Download ${escapeHtml(fileName)}</a></p>
<p>Then import the file into WireGuard.</p>`);
}

const DEAD_TEXT: Record<string, string> = {
  unknown: 'This link does not exist. Ask whoever sent it for a new one.',
  used: 'This link was opened already: a config link works once. Ask whoever sent it for a new one.',
  revoked: 'This link was revoked. Ask whoever sent it for a new one.',
  expired: 'This link has expired. Ask whoever sent it for a new one.',
};

export const deadShareText = (reason: string): string => DEAD_TEXT[reason] ?? DEAD_TEXT.unknown;

export const deadSharePageHtml = (reason: string): string =>
  frame('Config link not available', `<h1>Config link not available</h1><p>${escapeHtml(deadShareText(reason))}</p>`);
