// The encrypted configuration of the device contract: AES-256-GCM under
// SHA-256(utf8(hwid + SERVER_SALT)), sent as standard base64 of nonce(12) || ciphertext || tag(16).
import crypto from 'node:crypto';

export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;

export function deviceKey(hwid: string, salt: string): Buffer {
  return crypto.createHash('sha256').update(hwid + salt, 'utf8').digest();
}

export function encryptPayload(plaintext: string, key: Buffer): string {
  const nonce = crypto.randomBytes(NONCE_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

/** The inverse, for our own tests and tools; throws when the tag does not verify. */
export function decryptPayload(encoded: string, key: Buffer): string {
  const raw = Buffer.from(encoded, 'base64');
  if (raw.length < NONCE_BYTES + TAG_BYTES) throw new Error('encrypted payload is too short');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
}
