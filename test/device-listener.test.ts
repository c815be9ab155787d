import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import path from 'node:path';
import tls from 'node:tls';
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import { dispatch as cli } from '../src/cli/main';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { SALT, pythonDecrypt } from './device-support';
import { createLogger } from '../src/log';

const t = suiteNeeding('device listener: HTTPS on WGCP_DEVICE_LISTEN, device API only; wgcp tls init; SERVER_SALT file', ['openssl', 'python3:cryptography']);
const tlsDir = path.join(tempDir('wgcp-tls-'), 'tls');
let cert = '';
let key = '';
let d: TestDaemon;

interface Reply { status: number; json: any }

function request(mod: typeof https | typeof http, port: number, method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}, ca?: string): Promise<Reply> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = mod.request({ host: '127.0.0.1', port, method, path: pathname, ca, headers: { ...headers, ...(data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {}) } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => { let json; try { json = JSON.parse(text); } catch { json = undefined; } resolve({ status: res.statusCode!, json }); });
    });
    req.on('error', reject);
    req.end(data);
  });
}

t('wgcp tls init makes a self-signed pair with openssl: key 0600, cert 0644, and keeps existing files unless --force', () => {
  let out = '';
  assert.is(cli(['tls', 'init', '--out-dir', tlsDir, '--cn', 'localhost'], (s) => { out += s; }), 0);
  cert = path.join(tlsDir, 'cert.pem');
  key = path.join(tlsDir, 'key.pem');
  assert.ok(out.includes(`WGCP_TLS_CERT=${cert}`) && out.includes(`WGCP_TLS_KEY=${key}`));
  assert.is(fs.statSync(key).mode & 0o777, 0o600);
  assert.is(fs.statSync(cert).mode & 0o777, 0o644);
  const x509 = new (require('node:crypto').X509Certificate)(fs.readFileSync(cert));
  assert.ok(x509.subjectAltName.includes('IP Address:127.0.0.1'));
  assert.ok(x509.subjectAltName.includes('DNS:localhost'));
  const before = fs.readFileSync(cert, 'utf8');
  assert.is(cli(['tls', 'init', '--out-dir', tlsDir], () => {}), 2, 'refuses to overwrite');
  assert.is(fs.readFileSync(cert, 'utf8'), before);
  assert.is(cli(['tls', 'init', '--out-dir', tlsDir, '--cn', 'localhost', '--force'], () => {}), 0);
  assert.is.not(fs.readFileSync(cert, 'utf8'), before);
  assert.is(cli(['tls', 'init', '--out-dir', tlsDir, '--san', 'bogus'], () => {}), 2);
});

t('serves provisioning and heartbeat over HTTPS, verified against the generated certificate', async () => {
  d = await startTestDaemon({ env: { SERVER_SALT: SALT, WGCP_DEVICE_LISTEN: '127.0.0.1:0', WGCP_TLS_CERT: cert, WGCP_TLS_KEY: key } });
  const api = client(d);
  const server = await api.post('/api/servers', { name: 'tls', endpoint: 'vpn.example.com:51820', mode: 'forward' });
  const token = (await api.post(`/api/servers/${server.json.id}/tokens`, undefined)).json.token;
  const ca = fs.readFileSync(cert, 'utf8');
  const port = d.daemon.devicePort!;
  assert.ok(port > 0 && port !== d.daemon.port);
  const p = await request(https, port, 'POST', '/api/v1/provision', { token, hwid: 'tls-board' }, {}, ca);
  assert.is(p.status, 200);
  const cfg = pythonDecrypt(p.json.encrypted_config, 'tls-board');
  const hb = await request(https, port, 'POST', '/api/v1/heartbeat', { device_id: cfg.device_id, status: 'connected' }, {}, ca);
  assert.equal([hb.status, hb.json.device_id, hb.json.status], [200, cfg.device_id, 'ok']);
});

t('never serves the control plane on the device listener, whatever the credentials', async () => {
  const ca = fs.readFileSync(cert, 'utf8');
  const port = d.daemon.devicePort!;
  const auth = { 'wg-control-key': d.key };
  for (const [method, p] of [['GET', '/api/servers'], ['GET', '/healthz'], ['GET', '/api/openapi.json'], ['POST', '/api/servers/1/tokens'], ['GET', '/api/devices']]) {
    const r = await request(https, port, method, p, method === 'POST' ? {} : undefined, auth, ca);
    assert.is(r.status, 404, `${method} ${p}`);
    assert.equal(r.json, { error: 'not found', code: 'WGCP_ROUTE_NOT_FOUND' });
  }
});

function handshake(port: number, opts: tls.ConnectionOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...opts }, () => { const v = s.getProtocol()!; s.end(); resolve(v); });
    s.on('error', reject);
  });
}

t('refuses TLS 1.1 (the server says protocol_version) and accepts TLS 1.2 and 1.3', async () => {
  const old: tls.ConnectionOptions = { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' };
  // Control: this client can speak TLS 1.1 to a server that allows it, so a refusal below is the daemon's.
  const lax = tls.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key), minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' }, (s) => s.end());
  await new Promise<void>((r) => lax.listen(0, '127.0.0.1', () => r()));
  try {
    assert.is(await handshake((lax.address() as { port: number }).port, old), 'TLSv1.1');
  } finally {
    lax.close();
  }
  const err = await handshake(d.daemon.devicePort!, old).then(() => null, (e: NodeJS.ErrnoException) => e);
  assert.ok(err, 'TLS 1.1 must fail');
  assert.match(String(err!.code), /ALERT_PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL|WRONG_VERSION/);
  assert.is(await handshake(d.daemon.devicePort!, { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }), 'TLSv1.2');
  assert.is(await handshake(d.daemon.devicePort!, { minVersion: 'TLSv1.3' }), 'TLSv1.3');
});

t('without a certificate the device listener speaks plain HTTP, still the device API alone', async () => {
  await d.stop();
  d = await startTestDaemon({ env: { SERVER_SALT: SALT, WGCP_DEVICE_LISTEN: '127.0.0.1:0' } });
  const port = d.daemon.devicePort!;
  const r = await request(http, port, 'POST', '/api/v1/heartbeat', { device_id: 'x' });
  assert.equal([r.status, r.json], [400, { error: 'invalid device id', code: 'WGCP_DEVICE_ID_INVALID' }]);
  assert.is((await request(http, port, 'GET', '/api/servers', undefined, { 'wg-control-key': d.key })).status, 404);
  await d.stop();
});

/** The warnings a daemon started with this environment logs about the device API in plain HTTP. */
async function plainHttpWarnings(env: Record<string, string>): Promise<{ level: string; listener: string; address: string; msg: string }[]> {
  const lines: string[] = [];
  const started = await startTestDaemon({ env: { SERVER_SALT: SALT, ...env }, options: { log: createLogger('info', (l) => { lines.push(l); }) } });
  await started.stop();
  return lines.map((l) => JSON.parse(l)).filter((l) => /plain HTTP/.test(l.msg));
}

t('warns loudly at start when the device API is plain HTTP on a non-loopback address, naming the listener', async () => {
  const device = await plainHttpWarnings({ WGCP_DEVICE_LISTEN: '0.0.0.0:0' });
  assert.equal(device.map((w) => [w.level, w.listener, w.address]), [['warn', 'WGCP_DEVICE_LISTEN', '0.0.0.0']]);
  assert.match(device[0].msg, /device_id/);
  // The main listener serves the device API too.
  const main = await plainHttpWarnings({ WGCP_LISTEN: '0.0.0.0:0' });
  assert.equal(main.map((w) => [w.level, w.listener, w.address]), [['warn', 'WGCP_LISTEN', '0.0.0.0']]);
});

t('no such warning for loopback listeners or a device listener with TLS', async () => {
  assert.equal(await plainHttpWarnings({ WGCP_DEVICE_LISTEN: '127.0.0.1:0' }), []);
  assert.equal(await plainHttpWarnings({ WGCP_LISTEN: '[::1]:0' }), []);
  assert.equal(await plainHttpWarnings({ WGCP_DEVICE_LISTEN: '0.0.0.0:0', WGCP_TLS_CERT: cert, WGCP_TLS_KEY: key }), []);
});

t('a certificate that cannot be read stops the start with a message naming WGCP_TLS_CERT', async () => {
  const err = await startTestDaemon({ env: { WGCP_DEVICE_LISTEN: '127.0.0.1:0', WGCP_TLS_CERT: '/nonexistent/cert.pem', WGCP_TLS_KEY: key } }).then(() => null, (e: Error) => e);
  assert.ok(err);
  assert.match(err!.message, /WGCP_TLS_CERT/);
});

t('without SERVER_SALT, a salt is generated once into <dataDir>/server-salt (0600) and kept across restarts', async () => {
  const dataDir = tempDir();
  const first = await startTestDaemon({ dataDir });
  const file = path.join(dataDir, 'server-salt');
  const salt = fs.readFileSync(file, 'utf8').trim();
  assert.match(salt, /^[0-9a-f]{64}$/);
  assert.is(fs.statSync(file).mode & 0o777, 0o600);
  await first.stop();
  const second = await startTestDaemon({ dataDir });
  try {
    assert.is(fs.readFileSync(file, 'utf8').trim(), salt);
    const api = client(second);
    const server = await api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'standalone' });
    const token = (await api.post(`/api/servers/${server.json.id}/tokens`, undefined)).json.token;
    const r = await fetch(`${second.url}/api/v1/provision`, { method: 'POST', body: JSON.stringify({ token, hwid: 'salted' }) });
    const cfg = pythonDecrypt(((await r.json()) as { encrypted_config: string }).encrypted_config, 'salted', salt);
    assert.ok(cfg.device_id);
  } finally {
    await second.stop();
  }
});

t.run();
