import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isEndpoint, mergeTunnelFields, parsePayload } from '../src/payload';
import { samplePayload } from './helpers/device-server';

const t = suite('agent configuration payload');

t('accepts the contract payload and ignores unknown fields', () => {
  const p = samplePayload();
  assert.equal(parsePayload({ ...p, mtu: 1420, note: 'x' }), p);
});

t('lowercases hex keys', () => {
  const p = samplePayload();
  assert.is(parsePayload({ ...p, server_pub: p.server_pub.toUpperCase() }).server_pub, p.server_pub);
});

t('names a missing or malformed field', () => {
  const p = samplePayload();
  const cases: [string, unknown][] = [
    ['device_id', 'not-a-uuid'], ['private_key', 'ab'], ['preshared_key', undefined], ['server_pub', 'zz'.repeat(32)],
    ['internal_ip', '10.0.0.300'], ['endpoint', 'host-without-port'], ['allowed_ips', ''], ['server_wg_ip', 5], ['dns', 'a\nb'],
  ];
  for (const [field, value] of cases) assert.throws(() => parsePayload({ ...p, [field]: value }), new RegExp(`"${field}"`), field);
  assert.throws(() => parsePayload([]), /not a JSON object/);
});

t('accepts any printable dns and server_wg_ip: the agent keeps them but does not run them', () => {
  const p = samplePayload();
  assert.is(parsePayload({ ...p, dns: 'dns.example.net' }).dns, 'dns.example.net');
  assert.is(parsePayload({ ...p, dns: '' }).dns, '');
  assert.is(parsePayload({ ...p, server_wg_ip: '10.66.0.1/24' }).server_wg_ip, '10.66.0.1/24');
});

t('accepts endpoints as host:port, a.b.c.d:port and [v6]:port', () => {
  for (const e of ['vpn.example.com:51820', '192.0.2.1:1', '[2001:db8::1]:51820']) assert.ok(isEndpoint(e), e);
  for (const e of ['vpn.example.com', '192.0.2.1:0', '192.0.2.1:70000', '2001:db8::1:51820', 'a b:1']) assert.not.ok(isEndpoint(e), e);
});

t('merges a heartbeat answer: changed fields named, missing ones kept', () => {
  const p = parsePayload(samplePayload());
  const { next, changed } = mergeTunnelFields(p, { internal_ip: '10.66.0.9', endpoint: p.endpoint, dns: null });
  assert.equal(changed, ['internal_ip']);
  assert.equal(next, { ...p, internal_ip: '10.66.0.9' });
  assert.equal(mergeTunnelFields(p, {}).changed, []);
});

t('refuses an answer with a malformed tunnel field instead of running it', () => {
  assert.throws(() => mergeTunnelFields(parsePayload(samplePayload()), { private_key: 'short' }), /"private_key"/);
});

t.run();
