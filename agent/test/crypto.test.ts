import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import nodeCrypto from 'node:crypto';
import path from 'node:path';
import { DecryptError, deriveKey, openSealed, seal, webCrypto } from '../src/crypto';
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

t('uses Node\'s own WebCrypto where it has one, and never loads @peculiar/webcrypto then (7 MB of RSS)', async () => {
  assert.is(await webCrypto(), nodeCrypto.webcrypto);
  const crypto = path.join(__dirname, '..', 'src', 'crypto.js');
  const loaded = execFileSync(process.execPath, ['-e', `const c = require(${JSON.stringify(crypto)});
    c.deriveKey('h', 's').then((k) => c.seal(k, 'x')).then(() => process.stdout.write(String(Object.keys(require.cache).filter((f) => f.includes('@peculiar')).length)))`], { encoding: 'utf8' });
  assert.is(Number(loaded.trim()), 0, loaded);
});

t('where Node has no WebCrypto, @peculiar/webcrypto seals and opens the same format', async () => {
  const peculiar = await webCrypto({} as never);
  assert.is.not(peculiar, nodeCrypto.webcrypto);
  const digest = await peculiar.subtle.digest('SHA-256', Buffer.from(hwid + salt, 'utf8'));
  const key = await peculiar.subtle.importKey('raw', digest, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
  const nonce = peculiar.getRandomValues(new Uint8Array(12));
  const cipher = await peculiar.subtle.encrypt({ name: 'AES-GCM', iv: nonce, tagLength: 128 }, key, Buffer.from('both ways'));
  assert.is(openWithNode(hwid, salt, Buffer.concat([nonce, Buffer.from(cipher)]).toString('base64')), 'both ways');
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
