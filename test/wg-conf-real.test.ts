// The .conf files and QR codes the API hands out, read back by the real tools:
// `wg setconf` on a wireguard-go interface in a namespace, and zbarimg for the PNG.
// Endpoints are loopback addresses: `wg setconf` resolves names, and the test must not.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { canRun, canRunAsRoot } from './helpers/root';
import { Netns } from './helpers/netns';
import { stripConf } from '../src/wg/conf';
import { readQrCode } from './helpers/qr';

const t = suite('.conf and QR read by the real tools');
let d: TestDaemon;
let api: ReturnType<typeof client>;
const confs: { id: number; text: string; publicKey: string }[] = [];

t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
  const a = (await api.post('/api/servers', { name: 'a', endpoint: '127.0.0.1:51820', mode: 'forward' })).json.id;
  const b = (await api.post('/api/servers', { name: 'b', endpoint: '[::1]:51821', mode: 'standalone', mtu: 1380, dns: '1.1.1.1, 2606:4700:4700::1111', address: '172.20.0.1/16' })).json.id;
  for (const [sid, body] of [[a, { allowInternet: true }], [a, { allowInternet: false }], [b, { name: 'with mtu' }]] as const) {
    const p = (await api.post(`/api/servers/${sid}/peers`, body)).json;
    const conf = await api.get(`/api/peers/${p.id}/config`);
    assert.is(conf.status, 200);
    assert.match(conf.headers.get('content-type')!, /^text\/plain/);
    confs.push({ id: p.id, text: conf.text, publicKey: p.publicKey });
  }
});
t.after(async () => { await d.stop(); });

t('renders the layout DESIGN.md settles (no DNS line where no resolver listens on the tunnel address)', () => {
  const [full, split, mtu] = confs.map((c) => c.text);
  assert.match(full, /^\[Interface\]\nPrivateKey = \S{44}\nAddress = 10\.1\.0\.2\/32, fd[0-9a-f]{2}:[0-9a-f]{1,4}:[0-9a-f]{1,4}:[0-9a-f]{1,4}::2\/128\n\n\[Peer\]\nPublicKey = \S{44}\nPresharedKey = \S{44}\nAllowedIPs = 0\.0\.0\.0\/0, ::\/0\nEndpoint = 127\.0\.0\.1:51820\nPersistentKeepalive = 25\n$/);
  assert.match(split, /AllowedIPs = 10\.1\.0\.0\/24, fd[0-9a-f]{2}:[0-9a-f]{1,4}:[0-9a-f]{1,4}:[0-9a-f]{1,4}::\/64\n/, 'both families of the server');
  assert.match(mtu, /DNS = 1\.1\.1\.1, 2606:4700:4700::1111\nMTU = 1380\n/);
  assert.match(mtu, /Endpoint = \[::1\]:51821\n/);
});

t('holds a private key whose public key is the peer publicKey (checked by wg pubkey)', () => {
  if (!canRun('wg pubkey', ['wg'])) return;
  for (const c of confs) {
    const priv = /PrivateKey = (\S+)/.exec(c.text)![1];
    assert.is(execFileSync('wg', ['pubkey'], { input: priv + '\n', encoding: 'utf8' }).trim(), c.publicKey);
  }
});

t('loads with wg setconf on a wireguard-go interface once stripped', () => {
  if (!canRunAsRoot('wg setconf', ['ip', 'wg', 'wireguard-go'])) return;
  const ns = new Netns('conf');
  try {
    ns.exec('wireguard-go', ['wgt0']);
    const dir = tempDir();
    for (const c of confs) {
      const file = path.join(dir, `p${c.id}.conf`);
      fs.writeFileSync(file, stripConf(c.text), { mode: 0o600 });
      ns.exec('wg', ['setconf', 'wgt0', file]);
      const shown = ns.exec('wg', ['showconf', 'wgt0']);
      const psk = /PresharedKey = (\S+)/.exec(c.text)![1];
      assert.ok(shown.includes(`PresharedKey = ${psk}`), 'preshared key loaded');
      assert.ok(shown.includes('PersistentKeepalive = 25'));
      assert.ok(ns.exec('wg', ['show', 'wgt0', 'public-key']).trim() === c.publicKey);
    }
  } finally {
    ns.destroy();
  }
});

t('serves a QR PNG that zbarimg reads back to the exact .conf text', async () => {
  if (!canRun('QR decoding', ['zbarimg'])) return;
  const dir = tempDir();
  for (const c of confs) {
    const r = await api.get(`/api/peers/${c.id}/qrcode`);
    assert.is(r.status, 200);
    assert.is(r.headers.get('content-type'), 'image/png');
    assert.equal([...r.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const file = path.join(dir, `p${c.id}.png`);
    fs.writeFileSync(file, r.bytes);
    assert.is(readQrCode(file), c.text);
  }
});

t.run();
