// One-time config links on a real daemon over HTTP: made by an operator, opened once without
// signing in (the QR code and the .conf), then dead; expired, revoked, opened twice at once;
// never cached, no Referer; stored hashed; every step in the audit log.
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { DB_FILE } from '../src/store/db';
import { SHARE_LANGUAGES, SHARE_WORDS, shareLanguage } from '../src/views/share-words';

const t = suite('one-time config links');
let d: TestDaemon;
let api: ReturnType<typeof client>;
let operator: ReturnType<typeof client>;
let clock = Date.parse('2026-03-01T12:00:00Z');
let peerId = 0;

t.before(async () => {
  d = await startTestDaemon({ options: { now: () => new Date(clock) } });
  api = client(d);
  operator = client({ url: d.url, key: (await api.post('/api/apikeys', { name: 'front-desk', role: 'operator' })).json.key });
  const sid = (await api.post('/api/servers', { name: 'office', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  peerId = (await api.post(`/api/servers/${sid}/peers`, { name: 'anna-phone' })).json.id;
});
t.after(async () => { await d.stop(); });

const html = { accept: 'text/html' };
const open = (url: string, headers: Record<string, string> = html) => call(url, 'GET', '', undefined, headers);

t('an operator makes a link: a URL with a 32-byte random token, valid 24 h by default', async () => {
  const r = await operator.post(`/api/peers/${peerId}/share`, {});
  assert.is(r.status, 201);
  assert.match(r.json.url, new RegExp(`^${d.url}/share/[A-Za-z0-9_-]{43}$`));
  assert.is(Buffer.from(r.json.url.split('/share/')[1], 'base64url').length, 32);
  assert.is(r.json.expiresAt, new Date(clock + 24 * 3_600_000).toISOString());
  const other = (await operator.post(`/api/peers/${peerId}/share`, { expiresInHours: 168 })).json;
  assert.is(other.expiresAt, new Date(clock + 168 * 3_600_000).toISOString());
  assert.is.not(other.url, r.json.url);
});

t('a link is valid for at most 7 days, and only for a peer with a config', async () => {
  for (const hours of [0, 169, 1.5, '24']) {
    const r = await operator.post(`/api/peers/${peerId}/share`, { expiresInHours: hours });
    assert.is(r.status, 400, String(hours));
    assert.is(r.json.field, 'expiresInHours');
  }
  assert.is((await operator.post('/api/peers/999999/share', {})).status, 404);
});

t('the token is stored only as its SHA-256', async () => {
  const { url } = (await operator.post(`/api/peers/${peerId}/share`, {})).json;
  const token = url.split('/share/')[1];
  const db = new Database(path.join(d.dataDir, DB_FILE), { readonly: true });
  try {
    const dump = JSON.stringify(db.prepare('SELECT * FROM share_links').all());
    assert.is(dump.includes(token), false);
    const hash = (await import('node:crypto')).createHash('sha256').update(token).digest('hex');
    assert.ok(dump.includes(hash));
  } finally { db.close(); }
});

t('opened once without signing in: the QR code and the .conf, no-store, no Referer; then dead', async () => {
  const { url } = (await operator.post(`/api/peers/${peerId}/share`, {})).json;
  const conf = (await api.get(`/api/peers/${peerId}/config`)).text;
  const first = await open(url);
  assert.is(first.status, 200);
  assert.match(first.headers.get('content-type')!, /text\/html/);
  assert.match(first.headers.get('cache-control')!, /no-store/);
  assert.is(first.headers.get('referrer-policy'), 'no-referrer');
  assert.match(first.headers.get('content-security-policy')!, /default-src 'none'/);
  assert.match(first.text, /anna-phone/);
  const confUrl = /href="data:text\/plain;charset=utf-8;base64,([^"]+)"/.exec(first.text)![1];
  assert.is(Buffer.from(confUrl, 'base64').toString('utf8'), conf);
  const png = Buffer.from(/src="data:image\/png;base64,([^"]+)"/.exec(first.text)![1], 'base64');
  // The same PNG the signed-in QR code route draws of the same .conf (a drawing is deterministic).
  assert.ok(png.equals((await api.get(`/api/peers/${peerId}/qrcode`)).bytes));
  const second = await open(url);
  assert.is(second.status, 410);
  assert.match(second.text, /opened already/);
  assert.is(second.text.includes('PrivateKey'), false);
  const json = await open(url, {});
  assert.is(json.status, 410);
  assert.equal([json.json.code, json.json.error], ['WGCP_SHARE_LINK_GONE', 'This link was opened already: a config link works once. Ask whoever sent it for a new one.']);
});

t('two opens at once: exactly one gets the config', async () => {
  const { url } = (await operator.post(`/api/peers/${peerId}/share`, {})).json;
  const answers = await Promise.all(Array.from({ length: 8 }, () => open(url)));
  assert.equal(answers.map((a) => a.status).sort(), [200, 410, 410, 410, 410, 410, 410, 410]);
});

t('HEAD looks at a link without spending it', async () => {
  const { url } = (await operator.post(`/api/peers/${peerId}/share`, {})).json;
  assert.is((await call(url, 'HEAD', '')).status, 200);
  assert.is((await call(url, 'HEAD', '')).status, 200);
  assert.is((await open(url)).status, 200);
  assert.is((await call(url, 'HEAD', '')).status, 410);
});

t('an expired link is dead, and says so', async () => {
  const { url } = (await operator.post(`/api/peers/${peerId}/share`, { expiresInHours: 1 })).json;
  clock += 3_600_000;
  const r = await open(url);
  assert.is(r.status, 410);
  assert.match(r.text, /expired/);
});

t('a revoked link is dead; revoking twice or a used link is 409; listing shows states, never tokens', async () => {
  const made = (await operator.post(`/api/peers/${peerId}/share`, {})).json;
  assert.is((await operator.del(`/api/shares/${made.id}`)).status, 204);
  const r = await open(made.url);
  assert.is(r.status, 410);
  assert.match(r.text, /revoked/);
  assert.is((await operator.del(`/api/shares/${made.id}`)).status, 409);
  assert.is((await operator.del('/api/shares/999999')).status, 404);
  const list = (await operator.get(`/api/peers/${peerId}/shares`)).json as { id: number; state: string }[];
  assert.is(list.find((s) => s.id === made.id)!.state, 'revoked');
  assert.ok(list.some((s) => s.state === 'used') && list.some((s) => s.state === 'expired') && list.some((s) => s.state === 'live'));
  assert.is(JSON.stringify(list).includes(made.url.split('/share/')[1]), false);
});

t('an unknown or malformed token is 404', async () => {
  assert.is((await open(`${d.url}/share/${'A'.repeat(43)}`)).status, 404);
  assert.is((await open(`${d.url}/share/short`)).status, 404);
});

t('a viewer can neither make, list nor revoke links', async () => {
  const viewer = client({ url: d.url, key: (await api.post('/api/apikeys', { role: 'viewer' })).json.key });
  assert.is((await viewer.post(`/api/peers/${peerId}/share`, {})).status, 403);
  assert.is((await viewer.get(`/api/peers/${peerId}/shares`)).status, 403);
  assert.is((await viewer.del('/api/shares/1')).status, 403);
});

t('making, revoking and using a link are in the audit log, with who and from where', async () => {
  const rows = (await api.get(`/api/audit?action=share&target=peer:${peerId}&limit=1000`)).json.entries as { action: string; actor: { kind: string; name: string }; address: string }[];
  const count = (a: string) => rows.filter((r) => r.action === a).length;
  assert.ok(count('share.create') >= 8);
  assert.is(count('share.revoke'), 1);
  assert.is(count('share.use'), 3, 'one a link opened, whatever the number of tries');
  const use = rows.find((r) => r.action === 'share.use')!;
  assert.is(use.actor.kind, 'share');
  assert.is(use.address, '127.0.0.1');
  assert.equal(rows.find((r) => r.action === 'share.create')!.actor.name, 'front-desk');
});

t('the page speaks the reader\'s language (Accept-Language), a dead link too; the JSON answer stays English', async () => {
  const { url } = (await operator.post(`/api/peers/${peerId}/share`, {})).json;
  const first = await open(url, { accept: 'text/html', 'accept-language': 'de-AT,de;q=0.9,en;q=0.8' });
  assert.is(first.status, 200);
  assert.match(first.text, /<html lang="de">/);
  assert.match(first.text, /WireGuard-Konfiguration für anna-phone/);
  assert.match(first.text, /anna-phone\.conf herunterladen/);
  const dead = await open(url, { accept: 'text/html', 'accept-language': 'zh-CN,zh;q=0.9' });
  assert.is(dead.status, 410);
  assert.match(dead.text, /<html lang="zh-CN">/);
  assert.match(dead.text, /配置链接只能使用一次/);
  const json = await open(url, { 'accept-language': 'fr' });
  assert.match(json.json.error, /^This link was opened already/);
});

t('the share page\'s words: every language has English\'s, with the same {values}; the browser\'s order decides', () => {
  const holes = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).join();
  for (const lang of SHARE_LANGUAGES) {
    for (const [k, v] of Object.entries(SHARE_WORDS.en)) {
      const w = (SHARE_WORDS[lang] as unknown as Record<string, string>)[k];
      assert.ok(w && w.trim(), `${lang} ${k}`);
      assert.is(holes(w), holes(v), `${lang} ${k}: its {values}`);
    }
  }
  assert.is(shareLanguage('fr-CA, en;q=0.5'), 'fr');
  assert.is(shareLanguage('it, es;q=0.8, de;q=0.9'), 'de');
  assert.is(shareLanguage('zh-Hans-CN'), 'zh-CN');
  assert.is(shareLanguage('de;q=0, ja'), 'en');
  assert.is(shareLanguage(undefined), 'en');
});

t.run();
