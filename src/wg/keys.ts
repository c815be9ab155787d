// WireGuard keys: X25519 from node:crypto, shown as standard base64 of 32 bytes.
import crypto from 'node:crypto';

// PKCS#8 DER header of an X25519 private key; the raw 32 bytes follow it. An SPKI public
// key ends with its raw 32 bytes.
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

export interface KeyPair { privateKey: string; publicKey: string }

/**
 * A new key pair, made like `wg genkey`: 32 random bytes, clamped. Not through
 * crypto.generateKeyPairSync: in Node 20 a garbage-collected key-generation job locks the
 * key's mutex while a JWK export of that key holds it, and the daemon deadlocks.
 */
export function generateKeyPair(): KeyPair {
  const raw = crypto.randomBytes(32);
  raw[0] &= 248;
  raw[31] = (raw[31] & 127) | 64;
  const privateKey = raw.toString('base64');
  return { privateKey, publicKey: publicKeyOf(privateKey) };
}

export function publicKeyOf(privateKeyB64: string): string {
  const key = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, Buffer.from(privateKeyB64, 'base64')]), format: 'der', type: 'pkcs8' });
  const spki = crypto.createPublicKey(key).export({ format: 'der', type: 'spki' });
  return spki.subarray(spki.length - 32).toString('base64');
}

export function generatePresharedKey(): string { return crypto.randomBytes(32).toString('base64'); }

/** True for the base64 text of exactly 32 bytes, as `wg` prints keys. */
export function isWireGuardKey(text: string): boolean {
  return /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(text);
}

export const keyToHex = (b64: string): string => Buffer.from(b64, 'base64').toString('hex');
export const hexToKey = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
