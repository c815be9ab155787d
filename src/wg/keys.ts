// WireGuard keys: X25519 from node:crypto, shown as standard base64 of 32 bytes.
import crypto from 'node:crypto';

// A JWK names the curve's base point as its `x`: Node imports a private OKP key from its raw
// `d` and derives the public key itself (the `x` given is required but not used).
const JWK_X_PLACEHOLDER = Buffer.concat([Buffer.from([9]), Buffer.alloc(31)]).toString('base64url');

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

/**
 * The public key of a private one. Through a JWK, not PKCS#8 DER: OpenSSL 3's DER decoder
 * took about 0.55 ms a key, the largest single cost of a peer create; the JWK path 0.04 ms.
 */
export function publicKeyOf(privateKeyB64: string): string {
  const d = Buffer.from(privateKeyB64, 'base64').toString('base64url');
  const key = crypto.createPrivateKey({ key: { kty: 'OKP', crv: 'X25519', d, x: JWK_X_PLACEHOLDER }, format: 'jwk' });
  const x = key.export({ format: 'jwk' }).x;
  if (typeof x !== 'string') throw new Error('the X25519 key has no public part');
  return Buffer.from(x, 'base64url').toString('base64');
}

export function generatePresharedKey(): string { return crypto.randomBytes(32).toString('base64'); }

/**
 * WireGuard's "no preshared key": 32 zero bytes (a wg-quick peer without `PresharedKey`).
 * `wg` takes it to mean none and prints `(none)` for it: a state, not a key to compare.
 */
export const NO_PRESHARED_KEY = Buffer.alloc(32).toString('base64');

/** A preshared key as `wg show dump` prints it: `(none)` for the zero key, else the key. */
export const presharedKeyAsShown = (key: string): string => (key === NO_PRESHARED_KEY ? '(none)' : key);

/** True for the base64 text of exactly 32 bytes, as `wg` prints keys. */
export function isWireGuardKey(text: string): boolean {
  return /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(text);
}

export const keyToHex = (b64: string): string => Buffer.from(b64, 'base64').toString('hex');
export const hexToKey = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
