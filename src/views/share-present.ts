// Share links as the API shows them (never the token, which only the 201 answer's url
// holds), and the page a link opens: the QR code and the .conf, in one answer with no
// further request, since the link is dead once it is opened.
import type { ShareRecord } from '../store/shares';
import { present } from '../resources/describe';
import { SHARE } from '../resources/share';
import { SHARE_WORDS, type ShareLanguage } from './share-words';

/** A link as the API shows it (resources/share.ts): its state as of `now`. */
export const presentShare = (s: ShareRecord, now: string) => present(SHARE, s, 'viewer', { now });

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const frame = (lang: ShareLanguage, title: string, body: string): string => `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
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
export function sharePageHtml(peerName: string, fileName: string, conf: string, qrPng: Buffer, lang: ShareLanguage = 'en'): string {
  const w = SHARE_WORDS[lang];
  const name = escapeHtml(peerName);
  const file = escapeHtml(fileName);
  const confUrl = `data:text/plain;charset=utf-8;base64,${Buffer.from(conf, 'utf8').toString('base64')}`;
  return frame(lang, w.title.replace('{name}', peerName), `
<h1>${w.heading.replace('{name}', name)}</h1>
<p><strong>${w.usedUp}</strong> ${w.keep}</p>
<h2>${w.phone}</h2>
<p>${w.phoneHow}</p>
<img alt="${w.qrAlt}" src="data:image/png;base64,${qrPng.toString('base64')}">
<h2>${w.computer}</h2>
<p><a class="button" download="${file}" href="${confUrl}">${w.download.replace('{file}', file)}</a></p>
<p>${w.then}</p>`);
}

const deadText = (reason: string, lang: ShareLanguage): string => {
  const w = SHARE_WORDS[lang];
  return reason === 'used' ? w.used : reason === 'revoked' ? w.revoked : reason === 'expired' ? w.expired : w.unknown;
};

/** A dead link's reason in English, for the JSON answer (a script's). */
export const deadShareText = (reason: string): string => deadText(reason, 'en');

export const deadSharePageHtml = (reason: string, lang: ShareLanguage = 'en'): string =>
  frame(lang, SHARE_WORDS[lang].deadTitle, `<h1>${SHARE_WORDS[lang].deadTitle}</h1><p>${escapeHtml(deadText(reason, lang))}</p>`);
