import { tunnelFileName } from '../src/views/conf-name';
import fs from 'node:fs';
import path from 'node:path';
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { countingKernel } from './helpers/counting-kernel';
import { SmtpServer, type ReceivedMail } from './helpers/smtp';
import { readQrCode } from './helpers/qr';
import { eventually } from './helpers/receiver';
import { createLogger } from '../src/log';
import { generateKeyPair } from '../src/wg/keys';
import { collectUsage } from '../src/jobs/usage';
import { expirePeers } from '../src/jobs/calendar';
import { GB } from '../src/peer-state';
import { sendMail, testMessage } from '../src/events/mail';
import type { Resolve } from '../src/net/guarded-lookup';

const t = suiteNeeding('mail through a real SMTP server', ['python3:aiosmtpd', 'zbarimg']);

let smtp: SmtpServer;
let d: TestDaemon;
let api: ReturnType<typeof client>;
let sid: number;
const k = countingKernel();
const clock = { now: new Date(2026, 10, 10, 10, 0, 0) };
const logLines: string[] = [];

const settings = (over: Record<string, unknown> = {}) => ({
  enabled: true, server: '127.0.0.1', port: smtp.port, useAuth: true, useTLS: false,
  username: 'wgcp', password: 'pa55word', fromEmail: 'vpn@router.example', fromName: 'Router VPN', ...over,
});

t.before(async () => {
  smtp = await SmtpServer.start('wgcp', 'pa55word');
  d = await startTestDaemon({
    options: { kernel: k.kernel, now: () => clock.now, events: { schedule: false }, log: createLogger('debug', (l) => { logLines.push(l); }) },
  });
  api = client(d);
  sid = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
});
t.after(async () => {
  await d.stop();
  await smtp.stop();
});

const part = (m: ReceivedMail, pred: (p: ReceivedMail['parts'][number]) => boolean) => m.parts.find(pred);

t('refuses to mail while SMTP is not enabled, and asks for an address when the peer has none', async () => {
  const peer = (await api.post(`/api/servers/${sid}/peers`, { name: 'no-mail' })).json;
  const off = await api.post(`/api/peers/${peer.id}/email`, {});
  assert.is(off.status, 409);
  assert.is(off.json.code, 'WGCP_SMTP_DISABLED');
  assert.is((await api.post('/api/settings/smtp', settings())).status, 200);
  const noAddress = await api.post(`/api/peers/${peer.id}/email`, {});
  assert.is(noAddress.status, 400);
  assert.is(noAddress.json.field, 'to');
  assert.is((await api.post(`/api/peers/${peer.id}/email`, { to: 'not an address' })).json.field, 'to');
  const ownKey = (await api.post(`/api/servers/${sid}/peers`, { publicKey: generateKeyPair().publicKey, email: 'x@example.com' })).json;
  assert.is((await api.post(`/api/peers/${ownKey.id}/email`, {})).status, 404);
  assert.is((await api.post('/api/peers/999999/email', {})).status, 404);
  // A mail that goes out after the refusals: once it has arrived, whatever they had sent would have too.
  const marker = (await api.post(`/api/servers/${sid}/peers`, { name: 'marker', email: 'marker@example.com' })).json;
  assert.is((await api.post(`/api/peers/${marker.id}/email`, {})).status, 200);
  assert.equal((await smtp.waitFor(1)).map((m) => m.rcptTos), [['marker@example.com']], 'only the mail that was accepted');
});

t("mails the peer's .conf as an attachment (exact bytes) and its QR code inline, after AUTH", async () => {
  await api.post('/api/settings/smtp', settings());
  const peer = (await api.post(`/api/servers/${sid}/peers`, { name: 'laptop', email: 'owner@example.com' })).json;
  const before = smtp.mails.length;
  const r = await api.post(`/api/peers/${peer.id}/email`, undefined);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.to, 'owner@example.com');
  const mail = (await smtp.waitFor(before + 1)).at(-1)!;
  assert.equal(mail.rcptTos, ['owner@example.com']);
  assert.is(mail.mailFrom, 'vpn@router.example');
  assert.match(mail.from, /Router VPN/);
  assert.is(mail.authenticated, true);
  const conf = (await api.get(`/api/peers/${peer.id}/config`)).text;
  const attached = part(mail, (p) => p.filename === tunnelFileName(peer))!;
  assert.ok(attached, 'the .conf is attached');
  assert.is(attached.disposition, 'attachment');
  assert.is(Buffer.from(attached.base64, 'base64').toString('utf8'), conf);
  const html = Buffer.from(part(mail, (p) => p.contentType === 'text/html')!.base64, 'base64').toString('utf8');
  const qr = part(mail, (p) => p.contentType === 'image/png')!;
  assert.is(qr.disposition, 'inline');
  const cid = qr.cid!.replace(/^<|>$/g, '');
  assert.ok(html.includes(`cid:${cid}`), 'the HTML shows the inline QR');
  const png = path.join(tempDir(), 'qr.png');
  fs.writeFileSync(png, Buffer.from(qr.base64, 'base64'));
  assert.is(readQrCode(png), conf);
});

t("`to` in the body overrides the peer's own address", async () => {
  const peer = (await api.post(`/api/servers/${sid}/peers`, { email: 'owner@example.com' })).json;
  const before = smtp.mails.length;
  assert.is((await api.post(`/api/peers/${peer.id}/email`, { to: 'admin@example.com' })).status, 200);
  assert.equal((await smtp.waitFor(before + 1)).at(-1)!.rcptTos, ['admin@example.com']);
});

t("an SMTP refusal is a 502 carrying the server's words", async () => {
  await api.post('/api/settings/smtp', settings({ password: 'wrong' }));
  const peer = (await api.post(`/api/servers/${sid}/peers`, { email: 'owner@example.com' })).json;
  const r = await api.post(`/api/peers/${peer.id}/email`, {});
  assert.is(r.status, 502);
  assert.match(r.json.error, /535/);
  assert.not.ok(r.text.includes('wrong'), 'the password is not echoed');
  await api.post('/api/settings/smtp', settings());
});

t('POST /api/settings/smtp/test sends a test message; an unreachable server is a 502', async () => {
  const before = smtp.mails.length;
  const r = await api.post('/api/settings/smtp/test', { to: 'ops@example.com' });
  assert.is(r.status, 200, r.text);
  const mail = (await smtp.waitFor(before + 1)).at(-1)!;
  assert.equal(mail.rcptTos, ['ops@example.com']);
  assert.is(mail.subject, 'wgcp SMTP test');
  const self = await api.post('/api/settings/smtp/test', undefined);
  assert.is(self.status, 200);
  assert.equal((await smtp.waitFor(before + 2)).at(-1)!.rcptTos, ['vpn@router.example']);
  await api.post('/api/settings/smtp', settings({ port: 1 }));
  const down = await api.post('/api/settings/smtp/test', {});
  assert.is(down.status, 502);
  assert.match(down.json.error, /ECONNREFUSED/);
  await api.post('/api/settings/smtp', settings());
});

t('a server given by name is resolved through the address guard and reached at the address it checked', async () => {
  await api.post('/api/settings/smtp', settings({ server: 'localhost' }));
  const before = smtp.mails.length;
  const r = await api.post('/api/settings/smtp/test', { to: 'named@example.com' });
  assert.is(r.status, 200, r.text);
  assert.equal((await smtp.waitFor(before + 1)).at(-1)!.rcptTos, ['named@example.com']);
  // A name no DNS knows: only the resolver handed to the guard can lead the mailer to the server.
  const resolve: Resolve = async (host) => (host === 'smtp.wgcp.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
  const stored = { ...d.daemon.app.store.smtp.get(), server: 'smtp.wgcp.test' };
  await sendMail(stored, testMessage('made-up-name@example.com'), resolve);
  assert.equal((await smtp.waitFor(before + 2)).at(-1)!.rcptTos, ['made-up-name@example.com']);
  const metadata: Resolve = async () => [{ address: '169.254.169.254', family: 4 }];
  const refused = await sendMail(stored, testMessage('x@example.com'), metadata).then(() => '', (e: Error) => e.message);
  assert.is(refused, 'refused: 169.254.169.254 is a link-local address');
  await api.post('/api/settings/smtp', settings());
});

t('mails a notice when a peer is restricted for its data limit and when it expires', async () => {
  const limited = (await api.post(`/api/servers/${sid}/peers`, { name: 'tablet', email: 'kid@example.com', dataLimitGB: 1 })).json;
  const expiring = (await api.post(`/api/servers/${sid}/peers`, {
    name: 'guest', email: 'guest@example.com', expiresAt: new Date(clock.now.getTime() + 1000).toISOString(),
  })).json;
  const before = smtp.mails.length;
  k.counters.set(limited.publicKey, { rxBytes: GB, txBytes: 1, latestHandshake: 1 });
  assert.equal((await collectUsage(d.daemon.app)).restricted, [limited.id]);
  clock.now = new Date(clock.now.getTime() + 60_000);
  assert.equal(await expirePeers(d.daemon.app), [expiring.id]);
  const mails = (await smtp.waitFor(before + 2)).slice(before);
  const to = (addr: string) => mails.find((m) => m.rcptTos[0] === addr)!;
  assert.match(to('kid@example.com').subject, /data limit/);
  assert.match(to('guest@example.com').subject, /expired/);
});

t('a notice that cannot be sent is logged with the SMTP error', async () => {
  await api.post('/api/settings/smtp', settings({ password: 'wrong' }));
  const limited = (await api.post(`/api/servers/${sid}/peers`, { email: 'kid2@example.com', dataLimitGB: 1 })).json;
  k.counters.set(limited.publicKey, { rxBytes: GB, txBytes: 1, latestHandshake: 1 });
  await collectUsage(d.daemon.app);
  const line = await eventually('the failure in the log', () => logLines.find((l) => l.includes('mailing a notice failed')));
  const entry = JSON.parse(line);
  assert.is(entry.level, 'error');
  assert.is(entry.peerID, limited.id);
  assert.match(entry.error, /535/);
  assert.not.ok(logLines.some((l) => l.includes('pa55word')), 'the SMTP password never reaches the log');
  await api.post('/api/settings/smtp', settings());
});

t.run();
