// Where a share link points, against real daemons over raw HTTP with the Host header an
// attacker chooses: without WGCP_PUBLIC_URL only a Host naming this router (its listen
// address, an interface address, its host name, localhost) makes a link; any other is refused before a link exists. With WGCP_PUBLIC_URL the link
// is built on it, whatever the Host says.
import http from 'node:http';
import os from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../src/config';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('share links: built on WGCP_PUBLIC_URL or on a Host that names this router, never on another');

interface Made { status: number; json: any }

/** POST /api/peers/{id}/share with the Host header given. */
function share(d: TestDaemon, peerId: number, host: string): Promise<Made> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: d.daemon.port, method: 'POST', path: `/api/peers/${peerId}/share`, headers: { Host: host, 'wg-control-key': d.key } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function daemonWithPeer(env: Record<string, string> = {}): Promise<{ d: TestDaemon; peerId: number }> {
  const d = await startTestDaemon({ env });
  const api = client(d);
  const s = await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'standalone', address: '10.95.0.1/24' });
  const p = await api.post(`/api/servers/${s.json.id}/peers`, { name: 'phone' });
  return { d, peerId: p.json.id };
}

let plain: { d: TestDaemon; peerId: number };
t.before(async () => { plain = await daemonWithPeer(); });
t.after(async () => { await plain.d.stop(); });

const TOKEN_URL = (base: string) => new RegExp(`^${base.replace(/[.[\]]/g, '\\$&')}/share/[A-Za-z0-9_-]{43}$`);

t('a Host naming another site is refused with 400 naming the Host and telling to set WGCP_PUBLIC_URL; no link is made', async () => {
  const { d, peerId } = plain;
  const port = d.daemon.port;
  for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil.example`, `[::2]:${port}`, `127.0.0.1:99999`, 'a b']) {
    const r = await share(d, peerId, host);
    assert.is(r.status, 400, `${JSON.stringify(host)}: ${JSON.stringify(r.json)}`);
    assert.is(r.json.field, 'Host');
    assert.match(r.json.error, /^the share link is not made: the request's Host .* names no address or name of this router, and WGCP_PUBLIC_URL is not set; set WGCP_PUBLIC_URL/);
  }
  assert.equal((await client(d).get(`/api/peers/${peerId}/shares`)).json, [], 'no link was made');
});

t('a Host naming this router makes the link there: the listen address, localhost, the host name, an interface address, with or without a port', async () => {
  const { d, peerId } = plain;
  const port = d.daemon.port;
  const addresses = Object.values(os.networkInterfaces()).flatMap((l) => (l ?? []).map((i) => (i.family === 'IPv6' ? `[${i.address}]` : i.address)));
  for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port + 1}`, `${os.hostname()}:${port}`, `${os.hostname().toUpperCase()}:${port}`, ...addresses.map((a) => `${a}:${port}`)]) {
    const r = await share(d, peerId, host);
    assert.is(r.status, 201, `${host}: ${JSON.stringify(r.json)}`);
    assert.match(r.json.url, TOKEN_URL(`http://${host}`), host);
  }
});

t('with WGCP_PUBLIC_URL the link is built on it, whatever the Host says', async () => {
  const own = await daemonWithPeer({ WGCP_PUBLIC_URL: 'https://vpn.example.com/wgcp/' });
  try {
    for (const host of ['evil.example', `127.0.0.1:${own.d.daemon.port}`]) {
      const r = await share(own.d, own.peerId, host);
      assert.is(r.status, 201, JSON.stringify(r.json));
      assert.match(r.json.url, TOKEN_URL('https://vpn.example.com/wgcp'));
    }
  } finally {
    await own.d.stop();
  }
});

t('WGCP_PUBLIC_URL is checked at start: an http(s) URL without user, query, fragment or spaces', () => {
  assert.is(loadConfig({ WGCP_PUBLIC_URL: 'http://192.168.1.1:8080' }).publicUrl, 'http://192.168.1.1:8080');
  assert.is(loadConfig({}).publicUrl, null);
  for (const bad of ['ftp://vpn.example.com', 'vpn.example.com', 'https://u:p@vpn.example.com', 'https://vpn.example.com/?a=1', 'https://vpn.example.com/#x', 'https://vpn.example.com/\nx', 'https://vpn example.com']) {
    assert.throws(() => loadConfig({ WGCP_PUBLIC_URL: bad }), (e: Error) => e instanceof ConfigError && e.message.startsWith('WGCP_PUBLIC_URL must be'), bad);
  }
});

t.run();
