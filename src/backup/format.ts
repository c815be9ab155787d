// What a backup file looks like, as pure functions: a plain backup is the SQLite database
// itself; an encrypted one is a small header (magic, the scrypt and AES-256-GCM parameters
// as JSON), the ciphertext, and the GCM tag. Nothing here reads or writes files.
import crypto from 'node:crypto';

/** A refusal of a file that is not a usable wgcp backup: the CLI exits 2, nothing is changed. */
export class BackupRefused extends Error {}

/** `PRAGMA application_id` of a backup copy: "wgcp" in ASCII. */
export const WGCP_APPLICATION_ID = 0x77676370;

export const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
export const ENCRYPTED_MAGIC = Buffer.from('WGCPENC1', 'latin1');
export const TAG_BYTES = 16;
const MAX_HEADER = 1024;

export interface EncryptionHeader {
  kdf: 'scrypt';
  /** scrypt cost N (a power of two), block size r and parallelism p. */
  n: number;
  r: number;
  p: number;
  salt: string;
  cipher: 'aes-256-gcm';
  iv: string;
  /** The first 16 bytes of HMAC-SHA256(check key, CHECK_LABEL): tells a wrong passphrase from a damaged file. */
  check: string;
  /** Bytes of ciphertext (equal to the plain database's). */
  bytes: number;
}

export const CHECK_LABEL = 'wgcp backup passphrase check';

/** scrypt cost of new backups: 32 MiB of memory, about 0.1 s on a router's CPU. */
export const SCRYPT_DEFAULTS = { n: 2 ** 15, r: 8, p: 1 } as const;
/** The most memory a header may ask scrypt for (a crafted header must not exhaust the router). */
export const SCRYPT_MAX_MEMORY = 256 * 1024 * 1024;

export const scryptMemory = (h: Pick<EncryptionHeader, 'n' | 'r' | 'p'>): number => 128 * h.n * h.r + 1024 * h.r * h.p;

export type BackupKind = 'sqlite' | 'encrypted' | 'foreign';

export function backupKind(head: Buffer): BackupKind {
  if (head.length >= SQLITE_MAGIC.length && head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return 'sqlite';
  if (head.length >= ENCRYPTED_MAGIC.length && head.subarray(0, ENCRYPTED_MAGIC.length).equals(ENCRYPTED_MAGIC)) return 'encrypted';
  return 'foreign';
}

const SUM_BYTES = 8;
const headerSum = (bytes: Buffer): Buffer => crypto.createHash('sha256').update(bytes).digest().subarray(0, SUM_BYTES);

/**
 * The prefix of an encrypted file: magic, header length (2 bytes), header JSON, and 8 bytes
 * of its SHA-256 (a damaged header is told apart from a wrong passphrase). The prefix is
 * also the GCM additional data.
 */
export function encodeHeader(h: EncryptionHeader): Buffer {
  const json = Buffer.from(JSON.stringify(h), 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(json.length);
  const head = Buffer.concat([ENCRYPTED_MAGIC, len, json]);
  return Buffer.concat([head, headerSum(head)]);
}

const isB64 = (s: unknown, bytes: number): s is string => typeof s === 'string' && Buffer.from(s, 'base64').length === bytes && /^[A-Za-z0-9+/]+=*$/.test(s);

/** Reads the header from the first bytes of an encrypted file; `prefixBytes` is where the ciphertext starts. */
export function decodeHeader(head: Buffer): { header: EncryptionHeader; prefixBytes: number } {
  if (head.length < ENCRYPTED_MAGIC.length + 2) throw new BackupRefused('the encrypted backup is truncated: its header is incomplete');
  const len = head.readUInt16BE(ENCRYPTED_MAGIC.length);
  const start = ENCRYPTED_MAGIC.length + 2;
  if (len > MAX_HEADER) throw new BackupRefused('the encrypted backup is corrupted: its header is too long');
  if (head.length < start + len + SUM_BYTES) throw new BackupRefused('the encrypted backup is truncated: its header is incomplete');
  if (!headerSum(head.subarray(0, start + len)).equals(head.subarray(start + len, start + len + SUM_BYTES))) {
    throw new BackupRefused('the encrypted backup is corrupted: its header fails its checksum');
  }
  let h: Record<string, unknown>;
  try {
    h = JSON.parse(head.subarray(start, start + len).toString('utf8'));
  } catch {
    throw new BackupRefused('the encrypted backup is corrupted: its header is not readable');
  }
  const powerOfTwo = (x: unknown) => Number.isInteger(x) && (x as number) >= 2 && ((x as number) & ((x as number) - 1)) === 0;
  const small = (x: unknown) => Number.isInteger(x) && (x as number) >= 1 && (x as number) <= 64;
  if (h.kdf !== 'scrypt' || h.cipher !== 'aes-256-gcm' || !powerOfTwo(h.n) || !small(h.r) || !small(h.p)
    || !isB64(h.salt, 16) || !isB64(h.iv, 12) || !isB64(h.check, 16) || !Number.isSafeInteger(h.bytes) || (h.bytes as number) < 0) {
    throw new BackupRefused('the encrypted backup is corrupted: its header does not hold valid scrypt and AES-256-GCM parameters');
  }
  const header: EncryptionHeader = {
    kdf: 'scrypt', n: h.n as number, r: h.r as number, p: h.p as number, salt: h.salt as string,
    cipher: 'aes-256-gcm', iv: h.iv as string, check: h.check as string, bytes: h.bytes as number,
  };
  if (scryptMemory(header) > SCRYPT_MAX_MEMORY) throw new BackupRefused('the encrypted backup asks scrypt for more than 256 MiB of memory; refused');
  return { header, prefixBytes: start + len + SUM_BYTES };
}

/** Refuses an encrypted file whose size is not prefix + ciphertext + tag. */
export function checkEncryptedSize(fileBytes: number, prefixBytes: number, header: EncryptionHeader): void {
  const want = prefixBytes + header.bytes + TAG_BYTES;
  if (fileBytes < want) throw new BackupRefused(`the encrypted backup is truncated: ${fileBytes} bytes where its header announces ${want}`);
  if (fileBytes > want) throw new BackupRefused(`the encrypted backup is corrupted: ${fileBytes} bytes where its header announces ${want}`);
}

/**
 * Refuses a SQLite file shorter or longer than its own header says (page size times page
 * count), when that count is valid: a truncated copy is caught before SQLite reads it.
 */
export function checkSqliteSize(head: Buffer, fileBytes: number): void {
  if (head.length < 100) throw new BackupRefused('the backup is truncated: shorter than a SQLite header');
  const raw = head.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = head.readUInt32BE(28);
  const countValid = head.readUInt32BE(24) === head.readUInt32BE(92);
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new BackupRefused('the backup is corrupted: its SQLite header holds no valid page size');
  if (!countValid || pages === 0) return;
  const want = pageSize * pages;
  if (fileBytes < want) throw new BackupRefused(`the backup is truncated: ${fileBytes} bytes where its SQLite header announces ${want}`);
}
