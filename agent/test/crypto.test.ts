import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DecryptError, deriveKey, openSealed, seal } from '../src/crypto';
import { openWithNode, sealWithNode } from './helpers/device-server';

const t = suite('agent configuration crypto');
const hwid = 'board-0042';
const salt = 'the-server-salt-value';

t('opens what the contract scheme seals (checked against node:crypto)', async () => {
  const text = JSON.stringify({ device_id: 'x', private_key: 'ab'.repeat(32) });
  assert.is(await openSealed(await deriveKey(hwid, salt), sealWithNode(hwid, salt, text)), text);
});

t('seals in the same format: base64 of nonce(12) || ciphertext || tag(16)', async () => {
  const sealed = await seal(await deriveKey(hwid, salt), 'hello');
  assert.is(Buffer.from(sealed, 'base64').length, 12 + 5 + 16);
  assert.is(openWithNode(hwid, salt, sealed), 'hello');
});

t('uses a fresh nonce every time', async () => {
  const key = await deriveKey(hwid, salt);
  assert.is.not(await seal(key, 'same'), await seal(key, 'same'));
});

t('refuses a configuration sealed for another hwid or salt', async () => {
  const sealed = sealWithNode(hwid, salt, '{}');
  for (const key of [await deriveKey('board-0043', salt), await deriveKey(hwid, salt + 'x')]) {
    try { await openSealed(key, sealed); assert.unreachable(); } catch (e) { assert.instance(e, DecryptError); }
  }
});

t('refuses a tampered, truncated or non-base64 configuration', async () => {
  const key = await deriveKey(hwid, salt);
  const bytes = Buffer.from(sealWithNode(hwid, salt, '{"a":1}'), 'base64');
  bytes[14] ^= 1;
  for (const bad of [bytes.toString('base64'), Buffer.alloc(27).toString('base64'), 'not*base64!', '']) {
    try { await openSealed(key, bad); assert.unreachable(`opened ${bad}`); } catch (e) { assert.instance(e, DecryptError); }
  }
});

t.run();
