// TOTP (RFC 6238 over RFC 4226): SHA-1, 6 digits, 30-second steps, one step of clock skew
// either way. Pure functions on node:crypto; the store keeps the last step used so that a
// code works once.
import crypto from 'node:crypto';

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of now. */
export const TOTP_SKEW = 1;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const i = ALPHABET.indexOf(ch);
    if (i < 0) throw new Error('not base32');
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), base32. */
export const newTotpSecret = (): string => base32Encode(crypto.randomBytes(20));

export function hotp(secret: Buffer, counter: number): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = crypto.createHmac('sha1', secret).update(msg).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** TOTP_DIGITS;
  return String(code).padStart(TOTP_DIGITS, '0');
}

export const totpStep = (unixMs: number): number => Math.floor(unixMs / 1000 / TOTP_PERIOD_S);

export const totpCode = (base32Secret: string, unixMs: number): string => hotp(base32Decode(base32Secret), totpStep(unixMs));

/**
 * The step a code belongs to within the skew window around `unixMs`, or null. The caller
 * must still refuse a step at or before the last one used (a replay).
 */
export function matchTotp(base32Secret: string, code: string, unixMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const secret = base32Decode(base32Secret);
  const now = totpStep(unixMs);
  const presented = Buffer.from(code);
  let found: number | null = null;
  for (let step = now - TOTP_SKEW; step <= now + TOTP_SKEW; step++) {
    if (crypto.timingSafeEqual(Buffer.from(hotp(secret, step)), presented)) found ??= step;
  }
  return found;
}

/** The otpauth:// URI authenticator apps read from the enrolment QR code. */
export function otpauthUri(base32Secret: string, account: string, issuer = 'wgcp'): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  return `otpauth://totp/${label}?secret=${base32Secret}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD_S}`;
}
