// The contract's encrypted configuration (device-agent-api section 4): AES-256-GCM under
// SHA-256(hwid + SERVER_SALT), carried as base64 of nonce(12) || ciphertext || tag(16).
// The stored configuration is kept at rest in the same format under the same key.
// WebCrypto is Node's own (node:crypto's webcrypto, Node 15 and later); @peculiar/webcrypto
// (DESIGN.md section 5) is loaded only where that is missing: it costs about 7 MB of RSS,
// more than the rest of the agent together (bench/RESULTS.md).
import nodeCrypto, { type webcrypto as NodeWebCrypto } from 'node:crypto';

type WebCrypto = Pick<NodeWebCrypto.Crypto, 'subtle' | 'getRandomValues'>;

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

let chosen: Promise<WebCrypto> | null = null;

/** Node's WebCrypto when it has one (`own`, for tests: a runtime without it), else @peculiar/webcrypto. */
export function webCrypto(own: WebCrypto | undefined = (nodeCrypto as { webcrypto?: WebCrypto }).webcrypto): Promise<WebCrypto> {
  if (own?.subtle) return Promise.resolve(own);
  return import('@peculiar/webcrypto').then(({ Crypto: Peculiar }) => new Peculiar() as unknown as WebCrypto);
}

const crypto = (): Promise<WebCrypto> => (chosen ??= webCrypto());

export type SealKey = NodeWebCrypto.CryptoKey;

/** Raised when a sealed configuration cannot be opened: wrong key, tampered or malformed. */
export class DecryptError extends Error {}

export async function deriveKey(hwid: string, salt: string): Promise<SealKey> {
  const webcrypto = await crypto();
  const digest = await webcrypto.subtle.digest('SHA-256', Buffer.from(hwid + salt, 'utf8'));
  return webcrypto.subtle.importKey('raw', digest, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

export async function openSealed(key: SealKey, sealed: string): Promise<string> {
  if (typeof sealed !== 'string' || !BASE64.test(sealed)) throw new DecryptError('not base64 text');
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new DecryptError('too short to hold a nonce and a tag');
  const webcrypto = await crypto();
  try {
    const plain = await webcrypto.subtle.decrypt(
      { name: 'AES-GCM', iv: bytes.subarray(0, NONCE_BYTES), tagLength: TAG_BYTES * 8 },
      key,
      bytes.subarray(NONCE_BYTES),
    );
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  } catch (err) {
    throw new DecryptError(`authentication failed (${(err as Error).name})`);
  }
}

export async function seal(key: SealKey, text: string): Promise<string> {
  const webcrypto = await crypto();
  const nonce = webcrypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const cipher = await webcrypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, tagLength: TAG_BYTES * 8 }, key, Buffer.from(text, 'utf8'));
  return Buffer.concat([nonce, Buffer.from(cipher)]).toString('base64');
}
