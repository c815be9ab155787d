// The page as wgcpd serves it: at `/` on WGCP_LISTEN only, with a strict CSP and the other
// security headers, gzipped within its budget, its files read when first asked for.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { ensureWebBuilt, WEB_OUT, type BuildInfo } from './web-support';
import { fieldWords } from './web-words';
import { createRequestHandler } from '../src/http/server';
import { pageRoutes } from '../src/http/static-assets';
import { silentLogger } from '../src/log';

const t = suite('dashboard page: served on WGCP_LISTEN with security headers, within budget, read on first request');

let d: TestDaemon;
let info: BuildInfo;
t.before(async () => {
  info = ensureWebBuilt();
  d = await startTestDaemon({ env: { WGCP_DEVICE_LISTEN: '127.0.0.1:0' } });
});
t.after(async () => { await d.stop(); });

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);

t('GET / is the page, with a CSP that allows no inline script and no framing, nosniff and no referrer', async () => {
  const r = await call(d.url, 'GET', '/');
  assert.is(r.status, 200);
  assert.is(r.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = r.headers.get('content-security-policy') ?? '';
  const directives = new Map(csp.split(';').map((s) => s.trim().split(/\s+/)).map(([k, ...v]) => [k, v.join(' ')]));
  assert.is(directives.get('default-src'), "'none'");
  assert.is(directives.get('script-src'), "'self'");
  assert.is(directives.get('style-src'), "'self'");
  assert.is(directives.get('frame-ancestors'), "'none'");
  assert.is(directives.get('base-uri'), "'none'");
  assert.not.match(csp, /unsafe-inline|unsafe-eval|\*|https?:/);
  assert.is(r.headers.get('x-content-type-options'), 'nosniff');
  assert.is(r.headers.get('referrer-policy'), 'no-referrer');
  assert.is(r.headers.get('x-frame-options'), 'DENY');
  // Every script is a file of the page's own: none is written into the HTML.
  assert.not.match(r.text, /<script(?![^>]*\ssrc="\/assets\/)[^>]*>/);
  assert.not.match(r.text, /\sstyle=|\son[a-z]+=/i);
  assert.ok(assetsOf(r.text).every((u) => u.startsWith('/assets/')), assetsOf(r.text).join(' '));
});

t('its files are served with the same headers, cached by content hash, gzipped on request and 304 when unchanged', async () => {
  const page = await call(d.url, 'GET', '/');
  for (const asset of assetsOf(page.text)) {
    const plain = await call(d.url, 'GET', asset);
    assert.is(plain.status, 200, asset);
    assert.is(plain.headers.get('x-content-type-options'), 'nosniff');
    assert.is(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.ok(plain.headers.get('content-security-policy'));
    const zipped = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http.get(d.url + asset, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    assert.is(zipped.headers['content-encoding'], 'gzip', asset);
    assert.ok(zlib.gunzipSync(zipped.body).equals(plain.bytes), `${asset} unzips to the plain file`);
    const again = await call(d.url, 'GET', asset, undefined, { 'If-None-Match': plain.headers.get('etag')! });
    assert.is(again.status, 304);
  }
  const types = await Promise.all(assetsOf(page.text).map(async (a) => (await call(d.url, 'GET', a)).headers.get('content-type')));
  assert.ok(types.includes('text/javascript; charset=utf-8') && types.includes('text/css; charset=utf-8'), types.join(', '));
});

t('the script and stylesheet of the first load are at most 64 KiB gzipped, as served; the catalogues but English\'s are not in it', async () => {
  const page = await call(d.url, 'GET', '/');
  let total = 0;
  for (const asset of assetsOf(page.text).filter((a) => /\.(js|css)$/.test(a))) {
    total += zlib.gzipSync((await call(d.url, 'GET', asset)).bytes, { level: 9 }).length;
  }
  assert.ok(total > 5000, `a first load of ${total} B is too small to be the page`);
  assert.ok(total <= 64 * 1024, `first load ${total} B gzipped`);
  assert.is(total, info.firstLoadGzipBytes);
  // Each other language is a JSON file of its own, fetched only when chosen.
  const locales = info.files.filter((f) => /^assets\/locale-[\w-]+-[0-9a-f]{12}\.json$/.test(f.name));
  assert.equal(locales.map((f) => f.name.split('-').slice(1, -1).join('-')).sort(), ['de', 'es', 'fr', 'zh-CN']);
  assert.ok(locales.every((f) => !f.firstLoad));
  const de = await call(d.url, 'GET', `/${locales.find((f) => f.name.includes('-de-'))!.name}`);
  assert.is(de.status, 200);
  assert.is(de.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(de.json['nav.overview'], 'Übersicht');
});

t('the fields\' words (locales/fields.ts) are split by language: English\'s in the first load, each other\'s only in its catalogue', async () => {
  const fields = fieldWords();
  const page = await call(d.url, 'GET', '/');
  const scripts = (await Promise.all(assetsOf(page.text).filter((a) => a.endsWith('.js')).map(async (a) => (await call(d.url, 'GET', a)).text))).join('\n')
    .replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))); // esbuild writes non-ASCII as \uXXXX
  const de = (await call(d.url, 'GET', `/${info.files.find((f) => /^assets\/locale-de-/.test(f.name))!.name}`)).json as Record<string, string>;
  // Compared between quotes and backslashes, which the minifier writes its own way.
  const pieces = (words: string) => words.split(/["'\\]/).filter((piece) => piece.length >= 4);
  for (const [key, words] of Object.entries(fields)) {
    for (const piece of pieces(words.en)) assert.ok(scripts.includes(piece), `${key}: English's words in the script`);
    for (const lang of ['de', 'fr', 'es', 'zh-CN']) {
      const own = pieces(words[lang]).filter((piece) => !words.en.includes(piece));
      assert.equal(own.filter((piece) => scripts.includes(piece)), [], `${key}: ${lang}'s words kept out of the script`);
    }
    assert.is(de[key], words.de, `${key} in the German catalogue`);
  }
});

t('unknown files and paths out of the folder are 404', async () => {
  for (const p of ['/assets/nothing-here.js', '/assets/..%2Fbuild-info.json', '/assets/build-info.json', '/index.html', '/assets/.hidden.js']) {
    const r = await call(d.url, 'GET', p);
    assert.is(r.status, 404, p);
    assert.equal(r.json, { error: 'not found', code: 'WGCP_ROUTE_NOT_FOUND' });
  }
});

t('the device listener serves neither the page nor the sign-in', async () => {
  const device = `http://127.0.0.1:${d.daemon.devicePort}`;
  const page = await call(d.url, 'GET', '/');
  for (const p of ['/', ...assetsOf(page.text), '/api/session']) assert.is((await call(device, 'GET', p)).status, 404, p);
  assert.is((await call(device, 'POST', '/api/session', { key: d.key })).status, 404);
});

t('files are read from disk when first asked for, then kept; a page not built is a 503 that says how to build it', async () => {
  const dir = tempDir('wgcp-web-');
  const routes = pageRoutes(dir);
  const server = http.createServer(createRequestHandler({ routes, log: silentLogger, bodyLimit: 1024, authenticate: () => ({ kind: 'apikey' as const, id: null, name: 'test', role: 'admin' as const, address: null }) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const missing = await call(base, 'GET', '/');
    assert.is(missing.status, 503);
    assert.is(missing.json.code, 'WGCP_DASHBOARD_NOT_BUILT');
    // Put there after the routes were made: nothing was read at start.
    fs.cpSync(WEB_OUT, dir, { recursive: true });
    const first = await call(base, 'GET', '/');
    assert.is(first.status, 200);
    const asset = assetsOf(first.text)[0];
    fs.rmSync(path.join(dir, 'index.html'));
    assert.is((await call(base, 'GET', '/')).text, first.text, 'kept once read');
    fs.rmSync(path.join(dir, asset.slice(1)));
    assert.is((await call(base, 'GET', asset)).status, 404, 'never asked for, so never read');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

t.run();
