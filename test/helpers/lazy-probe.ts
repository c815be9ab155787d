// One daemon in a process of its own, one use of it, then which libraries that process
// has loaded before and after the use, printed as JSON: test/lazy-libraries.test.ts runs
// one of these a test so that no test sees what another one loaded.
//   node dist/test/helpers/lazy-probe.js serve|qrcode|mail|events|passkey
import http from 'node:http';
import net from 'node:net';
import { client, startTestDaemon, type TestDaemon } from './daemon';

export const LIBRARIES = ['qrcode', 'nodemailer', 'ws', 'prom-client', '@simplewebauthn/server'] as const;
export type Loaded = Record<(typeof LIBRARIES)[number], boolean>;
export interface ProbeResult { before: Loaded; status: number; after: Loaded }

const loaded = (): Loaded => Object.fromEntries(LIBRARIES.map((name) => [name,
  Object.keys(require.cache).some((file) => file.includes(`/node_modules/${name}/`))])) as Loaded;

const closedPort = (): Promise<number> => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as net.AddressInfo; s.close(() => resolve(port)); });
});

/** A bare WebSocket upgrade: a client library would load ws in this process itself. */
const upgrade = (d: TestDaemon): Promise<number> => new Promise((resolve, reject) => {
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

async function main(use: string): Promise<ProbeResult> {
  const d = await startTestDaemon();
  const api = client(d);
  try {
    // What every daemon serves: a server and a peer made, its configuration and the server read.
    const sid = (await api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
    const peer = (await api.post(`/api/servers/${sid}/peers`, { name: 'phone' })).json;
    const served = Math.max((await api.get(`/api/peers/${peer.id}/config`)).status, (await api.get(`/api/servers/${sid}`)).status);
    const before = loaded();
    let status: number;
    if (use === 'serve') status = served;
    else if (use === 'qrcode') status = (await api.get(`/api/peers/${peer.id}/qrcode`)).status;
    else if (use === 'mail') {
      // A loopback port nobody listens on: the send fails (502) after nodemailer was needed.
      const smtp = { enabled: true, server: '127.0.0.1', port: await closedPort(), useAuth: false, useTLS: false, fromEmail: 'vpn@example.com' };
      if ((await api.post('/api/settings/smtp', smtp)).status !== 200) throw new Error('the SMTP settings were refused');
      status = (await api.post('/api/settings/smtp/test', { to: 'owner@example.com' })).status;
    } else if (use === 'events') status = await upgrade(d);
    else if (use === 'passkey') {
      // A page session registering its first passkey (the Host names this router: localhost).
      const signIn = await fetch(`${d.url}/api/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key: d.key }) });
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
      status = await new Promise<number>((resolve, reject) => {
        http.request(`${d.url}/api/session/passkeys/options`, { method: 'POST', headers: { cookie, host: `localhost:${new URL(d.url).port}`, origin: `http://localhost:${new URL(d.url).port}` } }, (res) => { res.resume(); resolve(res.statusCode ?? 0); })
          .on('error', reject).end();
      });
    }
    else throw new Error(`no such use: ${use}`);
    return { before, status, after: loaded() };
  } finally {
    await d.stop();
  }
}

if (require.main === module) {
  main(process.argv[2]).then((r) => { process.stdout.write(JSON.stringify(r)); process.exit(0); }, (err) => { console.error(err); process.exit(1); });
}
