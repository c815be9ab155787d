// Encrypting and decrypting a backup: scrypt turns the passphrase into an AES-256-GCM key
// and a check key; the data streams through in chunks, so a large database never sits
// whole in the router's memory.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { promisify } from 'node:util';
import {
  BackupRefused, CHECK_LABEL, SCRYPT_DEFAULTS, TAG_BYTES, checkEncryptedSize, decodeHeader, encodeHeader, scryptMemory,
  type EncryptionHeader,
} from './format';

const scrypt = promisify(crypto.scrypt) as (pw: crypto.BinaryLike, salt: crypto.BinaryLike, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const CHUNK = 64 * 1024;

/** Passphrases shorter than this are refused: a backup holds every private key. */
export const MIN_PASSPHRASE = 8;

export function checkPassphrase(passphrase: string): void {
  if (passphrase.length < MIN_PASSPHRASE) throw new BackupRefused(`the passphrase must be at least ${MIN_PASSPHRASE} characters`);
}

async function deriveKeys(passphrase: string, h: Pick<EncryptionHeader, 'n' | 'r' | 'p' | 'salt'>): Promise<{ key: Buffer; check: Buffer }> {
  const out = await scrypt(passphrase.normalize('NFC'), Buffer.from(h.salt, 'base64'), 64, { N: h.n, r: h.r, p: h.p, maxmem: scryptMemory(h) + 1024 * 1024 });
  const check = crypto.createHmac('sha256', out.subarray(32)).update(CHECK_LABEL).digest().subarray(0, 16);
  return { key: out.subarray(0, 32), check };
}

/** The encrypted form of a plain backup file, chunk by chunk: header, ciphertext, tag. */
export async function* encryptFile(plainPath: string, passphrase: string): AsyncGenerator<Buffer> {
  checkPassphrase(passphrase);
  const bytes = fs.statSync(plainPath).size;
  const salt = crypto.randomBytes(16).toString('base64');
  const iv = crypto.randomBytes(12);
  const { key, check } = await deriveKeys(passphrase, { ...SCRYPT_DEFAULTS, salt });
  const prefix = encodeHeader({ kdf: 'scrypt', ...SCRYPT_DEFAULTS, salt, cipher: 'aes-256-gcm', iv: iv.toString('base64'), check: check.toString('base64'), bytes });
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(prefix);
  yield prefix;
  for await (const chunk of fs.createReadStream(plainPath, { highWaterMark: CHUNK })) yield cipher.update(chunk as Buffer);
  const tail = cipher.final();
  if (tail.length) yield tail;
  yield cipher.getAuthTag();
}

/**
 * Decrypts an encrypted backup into `outPath` (mode 0600). A wrong passphrase, a truncated
 * or altered file is refused (BackupRefused) and `outPath` is removed.
 */
export async function decryptFile(file: string, passphrase: string, outPath: string): Promise<void> {
  const fd = fs.openSync(file, 'r');
  let out: number | null = null;
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, 2048));
    fs.readSync(fd, head, 0, head.length, 0);
    const { header, prefixBytes } = decodeHeader(head);
    checkEncryptedSize(size, prefixBytes, header);
    const { key, check } = await deriveKeys(passphrase, header);
    if (!crypto.timingSafeEqual(check, Buffer.from(header.check, 'base64'))) throw new BackupRefused('wrong passphrase: the backup cannot be decrypted with it');
    const tag = Buffer.alloc(TAG_BYTES);
    fs.readSync(fd, tag, 0, TAG_BYTES, prefixBytes + header.bytes);
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(header.iv, 'base64'));
    decipher.setAAD(head.subarray(0, prefixBytes));
    decipher.setAuthTag(tag);
    out = fs.openSync(outPath, 'w', 0o600);
    const buf = Buffer.alloc(CHUNK);
    for (let pos = prefixBytes, left = header.bytes; left > 0;) {
      const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, left), pos);
      if (n === 0) throw new BackupRefused('the encrypted backup is truncated');
      fs.writeSync(out, decipher.update(buf.subarray(0, n)));
      pos += n;
      left -= n;
    }
    try {
      fs.writeSync(out, decipher.final());
    } catch {
      throw new BackupRefused('the encrypted backup is corrupted: its contents fail the AES-GCM authentication');
    }
  } catch (err) {
    if (out !== null) { fs.closeSync(out); out = null; }
    fs.rmSync(outPath, { force: true });
    throw err;
  } finally {
    if (out !== null) fs.closeSync(out);
    fs.closeSync(fd);
  }
}
