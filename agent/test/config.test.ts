import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, endpointUrl, loadConfigFile, parseConfig } from '../src/config';
import { tempDir } from './helpers/temp-dir';

const t = suite('agent configuration file');
const base = { server_url: 'https://vpn.example.com:8443', token: 'b3a5c1f0-8d2e-4c1a-9f6b-2e7d4a1c0b9e', server_salt: 'pepper-pepper-pepper', hwid: 'board-0042' };
const tmp = () => tempDir('wgcp-agent-config-');

t('fills the defaults of DESIGN.md section 5', () => {
  const c = parseConfig(base);
  assert.is(c.interface, 'wgcp0');
  assert.is(c.state_dir, '/var/lib/wgcp-agent');
  assert.is(c.heartbeat_interval_s, 30);
  assert.is(c.ca, null);
  assert.is(c.hwid, 'board-0042');
  assert.is(c.server_url.href, 'https://vpn.example.com:8443/');
});

t('reads the hardware id from hwid_file, trimmed', () => {
  const f = path.join(tmp(), 'machine-id');
  fs.writeFileSync(f, '0123456789abcdef0123456789abcdef\n');
  const { hwid: _drop, ...rest } = base;
  assert.is(parseConfig({ ...rest, hwid_file: f }).hwid, '0123456789abcdef0123456789abcdef');
});

t('refuses an unknown key and names it', () => {
  assert.throws(() => parseConfig({ ...base, heartbeat_interval: 5 }), /unknown key "heartbeat_interval"/);
});

t('refuses hwid and hwid_file together', () => {
  assert.throws(() => parseConfig({ ...base, hwid_file: '/etc/machine-id' }), /not both/);
});

t('names a missing or empty required key', () => {
  for (const key of ['server_url', 'token', 'server_salt'] as const) {
    const { [key]: _drop, ...rest } = base;
    assert.throws(() => parseConfig(rest), new RegExp(`"${key}" must be a non-empty string`));
    assert.throws(() => parseConfig({ ...base, [key]: ' ' }), new RegExp(`"${key}"`));
  }
});

t('refuses a server_url that is not http or https', () => {
  assert.throws(() => parseConfig({ ...base, server_url: 'vpn.example.com' }), /"server_url" is not a URL/);
  assert.throws(() => parseConfig({ ...base, server_url: 'ftp://vpn.example.com' }), /http:\/\/ or https:\/\//);
});

t('refuses a plain http:// server_url: the device_id and the keys would cross the network readable', () => {
  for (const url of ['http://vpn.example.com:8443', 'http://192.168.1.1:8443', 'http://[fd00::1]:8443', 'http://127.0.0.1.example.com']) {
    assert.throws(() => parseConfig({ ...base, server_url: url }), /"server_url" is plain http:\/\/.*"allow_insecure_http": true/, url);
  }
});

t('takes http:// when the configuration says "allow_insecure_http": true, and only a boolean there', () => {
  assert.is(parseConfig({ ...base, server_url: 'http://192.168.1.1:8443', allow_insecure_http: true }).server_url.href, 'http://192.168.1.1:8443/');
  assert.throws(() => parseConfig({ ...base, server_url: 'http://192.168.1.1:8443', allow_insecure_http: false }), /allow_insecure_http/);
  assert.throws(() => parseConfig({ ...base, allow_insecure_http: 'yes' }), /"allow_insecure_http" must be true or false/);
  assert.is(parseConfig({ ...base, allow_insecure_http: false }).server_url.protocol, 'https:', 'https needs no flag either way');
});

t('takes http:// to a loopback address without the flag: that traffic never leaves the device', () => {
  for (const url of ['http://127.0.0.1:8080', 'http://127.0.0.53:8080', 'http://[::1]:8080', 'http://localhost:8080']) {
    assert.is(parseConfig({ ...base, server_url: url }).server_url.protocol, 'http:', url);
  }
});

t('refuses a hardware id with spaces or control characters', () => {
  assert.throws(() => parseConfig({ ...base, hwid: 'board 42' }), /"hwid": the hardware id/);
  assert.throws(() => parseConfig({ ...base, hwid: 'x'.repeat(129) }), /"hwid"/);
});

t('refuses a bad interface name, a relative state_dir and a bad interval', () => {
  assert.throws(() => parseConfig({ ...base, interface: 'this-name-is-too-long' }), /"interface"/);
  assert.throws(() => parseConfig({ ...base, state_dir: 'var/agent' }), /"state_dir" must be an absolute path/);
  for (const v of [0, 1.5, '30', 86401]) assert.throws(() => parseConfig({ ...base, heartbeat_interval_s: v }), /"heartbeat_interval_s"/);
});

t('reads ca_file and says which file it could not read', () => {
  const f = path.join(tmp(), 'ca.pem');
  fs.writeFileSync(f, '-----BEGIN CERTIFICATE-----\n');
  assert.is(parseConfig({ ...base, ca_file: f }).ca, '-----BEGIN CERTIFICATE-----\n');
  assert.throws(() => parseConfig({ ...base, ca_file: '/nonexistent/ca.pem' }), /"ca_file": cannot read \/nonexistent\/ca.pem: ENOENT/);
});

t('names the file when it is not JSON or not an object', () => {
  const f = path.join(tmp(), 'agent.json');
  fs.writeFileSync(f, '{"server_url": ');
  assert.throws(() => loadConfigFile(f), (e: Error) => e instanceof ConfigError && e.message.startsWith(`${f} is not valid JSON`));
  fs.writeFileSync(f, '[]');
  assert.throws(() => loadConfigFile(f), /must be a JSON object/);
  assert.throws(() => loadConfigFile(path.join(tmp(), 'missing.json')), /configuration file: cannot read .*ENOENT/);
});

t('keeps a path prefix of server_url for the device routes', () => {
  assert.is(endpointUrl(new URL('https://h:1'), 'api/v1/provision').href, 'https://h:1/api/v1/provision');
  assert.is(endpointUrl(new URL('https://h:1/wgcp'), 'api/v1/heartbeat').href, 'https://h:1/wgcp/api/v1/heartbeat');
});

t.run();
