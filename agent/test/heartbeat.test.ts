import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { heartbeatBody, judgeAnswer } from '../src/heartbeat';
import { parsePayload } from '../src/payload';
import { samplePayload } from './helpers/device-server';

const t = suite('agent heartbeat rules');
const cfg = parsePayload(samplePayload());
const now = Date.parse('2026-11-22T10:00:00.000Z');
const answer = (extra: Record<string, unknown> = {}) => {
  const { device_id, ...fields } = cfg;
  return { device_id, status: 'ok', ...fields, forwards_hash: 'h1', ...extra };
};

t('reports connected with the last handshake when the tunnel has a fresh one', () => {
  const body = heartbeatBody(cfg.device_id, 'HEARTBEAT', { present: true, lastHandshake: new Date(now - 20_000) }, now);
  assert.equal(body, { device_id: cfg.device_id, status: 'connected', state: 'HEARTBEAT', tunnel_up: true, last_handshake: '2026-11-22T09:59:40.000Z' });
});

t('reports recovering without last_handshake when there was none', () => {
  const body = heartbeatBody(cfg.device_id, 'HEARTBEAT', { present: true, lastHandshake: null }, now);
  assert.equal(body, { device_id: cfg.device_id, status: 'recovering', state: 'HEARTBEAT', tunnel_up: false });
});

t('reports stopped when the agent shuts down', () => {
  assert.is(heartbeatBody(cfg.device_id, 'HEARTBEAT', { present: false, lastHandshake: null }, now, true).status, 'stopped');
});

t('adopts the first hash after provisioning without a rebuild', () => {
  const v = judgeAnswer(cfg, null, answer(), true);
  assert.equal([v.rebuild, v.forwardsHash, v.changed], [false, 'h1', []]);
});

t('rebuilds when forwards_hash differs from the stored one', () => {
  const v = judgeAnswer(cfg, 'h0', answer(), true);
  assert.ok(v.rebuild);
  assert.equal(v.reasons, ['forwards_hash changed']);
});

t('rebuilds when any tunnel field differs from what runs, with the new values', () => {
  const newKey = 'cd'.repeat(32);
  const v = judgeAnswer(cfg, 'h1', answer({ private_key: newKey, endpoint: '127.0.0.1:4000' }), true);
  assert.ok(v.rebuild);
  assert.equal(v.changed, ['private_key', 'endpoint']);
  assert.is(v.next.private_key, newKey);
  assert.is(v.next.endpoint, '127.0.0.1:4000');
});

t('rebuilds when the tunnel interface has vanished', () => {
  assert.equal(judgeAnswer(cfg, 'h1', answer(), false).reasons, ['tunnel interface is missing']);
});

t('keeps running on an unchanged answer, ignoring unknown and missing fields', () => {
  const { dns: _d, allowed_ips: _a, ...partial } = answer({ new_field: { nested: true } });
  const v = judgeAnswer(cfg, 'h1', partial, true);
  assert.not.ok(v.rebuild);
  assert.equal(v.next, cfg);
});

t('keeps the stored hash when the answer has none', () => {
  const { forwards_hash: _h, ...rest } = answer();
  const v = judgeAnswer(cfg, 'h1', rest, true);
  assert.equal([v.rebuild, v.forwardsHash], [false, null]);
});

t('refuses an answer that is not an object or has a malformed field', () => {
  assert.throws(() => judgeAnswer(cfg, 'h1', 'ok', true), /not a JSON object/);
  assert.throws(() => judgeAnswer(cfg, 'h1', answer({ forwards_hash: 5 }), true), /forwards_hash/);
  assert.throws(() => judgeAnswer(cfg, 'h1', answer({ internal_ip: 'nope' }), true), /internal_ip/);
});

t.run();
