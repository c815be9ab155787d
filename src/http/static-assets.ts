// The dashboard's built files (npm run build:web writes them to dist/web), served at `/` and
// `/assets/<name>` on WGCP_LISTEN only. A file is read from disk when first asked for, not
// at start, then kept; gzip is sent where the build made it and the browser takes it.
// Every answer carries the page's security headers: a CSP without inline script, no framing.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { apiError } from '../error-registry';
import type { RequestContext, Route } from './router';
import type { Reply } from './reply';

/** Where the build puts the page: dist/web beside dist/src. */
export const WEB_DIR = path.join(__dirname, '..', '..', 'web');

export const PAGE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
  "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
].join('; ');

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
};
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,80}\.[a-z]{2,4}$/;

interface Loaded { body: Buffer; gzip: Buffer | null; type: string; etag: string }

function readIfThere(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function pageRoutes(dir: string = WEB_DIR): Route[] {
  const loaded = new Map<string, Loaded>();

  function load(relative: string): Loaded | null {
    const kept = loaded.get(relative);
    if (kept) return kept;
    const file = path.join(dir, relative);
    const body = readIfThere(file);
    if (body === null) return null;
    const entry: Loaded = {
      body,
      gzip: readIfThere(`${file}.gz`),
      type: TYPES[path.extname(file)] ?? 'application/octet-stream',
      etag: `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    };
    loaded.set(relative, entry);
    return entry;
  }

  function serve(ctx: RequestContext, f: Loaded, cache: string): Reply {
    const headers: Record<string, string> = { ...PAGE_HEADERS, 'Cache-Control': cache, ETag: f.etag, Vary: 'Accept-Encoding' };
    if (ctx.req.headers['if-none-match'] === f.etag) return { status: 304, headers };
    const gzip = f.gzip !== null && /\bgzip\b/.test(String(ctx.req.headers['accept-encoding'] ?? ''));
    if (gzip) headers['Content-Encoding'] = 'gzip';
    return { status: 200, raw: gzip ? f.gzip! : f.body, type: f.type, headers };
  }

  return [
    {
      method: 'GET', path: '/', auth: 'none',
      doc: () => ({ summary: 'The dashboard page (HTML)', answers: { 200: { description: 'the page', type: 'text/html' } }, errors: [[503, 'the page is not built']] }),
      handler(ctx) {
        const index = load('index.html');
        if (!index) throw apiError('WGCP_DASHBOARD_NOT_BUILT');
        // The page names its assets by content hash: the page itself is checked every time.
        return serve(ctx, index, 'no-cache');
      },
    },
    {
      method: 'GET', path: '/assets/:name', auth: 'none',
      doc: () => ({ summary: "The dashboard's scripts, styles and icon, named by content hash", answers: { 200: { description: 'the file' } }, errors: [[404, 'no such file']] }),
      handler(ctx) {
        const name = ctx.params.name;
        const asset = ASSET_NAME.test(name) && TYPES[path.extname(name)] ? load(path.join('assets', name)) : null;
        if (!asset) throw apiError('WGCP_ROUTE_NOT_FOUND');
        return serve(ctx, asset, 'public, max-age=31536000, immutable');
      },
    },
  ];
}
