// Reads a QR code back from a PNG with zbarimg, the way a phone's scanner would see it.
import { execFileSync } from 'node:child_process';

/**
 * The exact text of the QR code in a PNG. Only the QR reader is on: with every symbology
 * on, zbar read a stray linear code in about one random QR in 3,000 and appended it
 * (CI once got "--368943"). Binary mode gives the bytes as encoded, without a newline added.
 */
export function readQrCode(png: string): string {
  return execFileSync('zbarimg', ['--raw', '-q', '-Sdisable', '-Sqrcode.enable', '-Sbinary', png],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}
