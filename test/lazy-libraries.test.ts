import http from 'node:http';
import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';

// The test daemon runs in this process, so what it loads shows in this require.cache; this
// file itself loads none of the libraries it looks for.
const t = suite('libraries a daemon may never need are loaded at their first use, not at start');

let d: TestDaemon;
let api: ReturnType<typeof client>;
const loaded = (name: string) => Object.keys(require.cache).some((file) => file.includes(`/node_modules/${name}/`));

t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
});

t.after(async () => { await d.stop(); });

t('a started daemon serving servers and peers has loaded none of qrcode, nodemailer, ws, prom-client', async () => {
  const sid = (await api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  const peer = (await api.post(`/api/servers/${sid}/peers`, { name: 'phone' })).json;
  assert.is((await api.get(`/api/peers/${peer.id}/config`)).status, 200);
  assert.is((await api.get(`/api/servers/${sid}`)).status, 200);
  for (const name of ['qrcode', 'nodemailer', 'ws', 'prom-client']) assert.is(loaded(name), false, `${name} is not loaded`);
});

t('the first QR code loads qrcode', async () => {
  const r = await api.get('/api/peers/1/qrcode');
  assert.is(r.status, 200);
  assert.is(loaded('qrcode'), true);
  assert.is(loaded('nodemailer'), false);
});

t('the first mail loads nodemailer, even one that cannot be delivered', async () => {
  // A loopback port nobody listens on: the send fails (502) after nodemailer was needed.
  const closed = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as net.AddressInfo; s.close(() => resolve(port)); });
  });
  assert.is((await api.post('/api/settings/smtp', { enabled: true, server: '127.0.0.1', port: closed, useAuth: false, useTLS: false, fromEmail: 'vpn@example.com' })).status, 200);
  assert.is((await api.post('/api/settings/smtp/test', { to: 'owner@example.com' })).status, 502);
  assert.is(loaded('nodemailer'), true);
  assert.is(loaded('ws'), false);
});

t('the first event stream client loads ws', async () => {
  // A bare upgrade request: a WebSocket client library would load ws in this process itself.
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request(`${d.url}/api/events`, {
      headers: {
        connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'), 'wg-control-key': d.key,
      },
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve(res.statusCode ?? 0); });
    req.on('response', (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('error', reject);
    req.end();
  });
  assert.is(status, 101);
  assert.is(loaded('ws'), true);
});

t.run();
