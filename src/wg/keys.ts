// WireGuard keys: X25519 from node:crypto, shown as standard base64 of 32 bytes.
import crypto from 'node:crypto';

// PKCS#8 DER header of an X25519 private key; the raw 32 bytes follow it.
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

export interface KeyPair { privateKey: string; publicKey: string }

export function generateKeyPair(): KeyPair {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('x25519');
  const priv = privateKey.export({ format: 'jwk' }).d as string;
  const pub = publicKey.export({ format: 'jwk' }).x as string;
  return { privateKey: Buffer.from(priv, 'base64url').toString('base64'), publicKey: Buffer.from(pub, 'base64url').toString('base64') };
}

export function publicKeyOf(privateKeyB64: string): string {
  const key = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, Buffer.from(privateKeyB64, 'base64')]), format: 'der', type: 'pkcs8' });
  const jwk = crypto.createPublicKey(key).export({ format: 'jwk' });
  return Buffer.from(jwk.x as string, 'base64url').toString('base64');
}

export function generatePresharedKey(): string { return crypto.randomBytes(32).toString('base64'); }

/** True for the base64 text of exactly 32 bytes, as `wg` prints keys. */
export function isWireGuardKey(text: string): boolean {
  return /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(text);
}

export const keyToHex = (b64: string): string => Buffer.from(b64, 'base64').toString('hex');
export const hexToKey = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
