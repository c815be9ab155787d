// The channel's authentication: every request carries an HMAC-SHA256, under the shared key,
// of its method, path, a timestamp and a random nonce; every answer carries the HMAC of the
// request's nonce and the answer's body. The key never crosses the wire; a request older
// than SKEW_MS or a nonce seen before is refused (no replay), and a follower applies nothing
// a forged answer brings.
import crypto from 'node:crypto';

export const AUTH_HEADER = 'wgcp-ha-auth';
export const SIGNATURE_HEADER = 'wgcp-ha-signature';
const SKEW_MS = 60_000;

const mac = (key: Buffer, text: string | Buffer): string => crypto.createHmac('sha256', key).update(text).digest('hex');

/** The header a request carries; `nonce` signs the answer. */
export function signRequest(key: Buffer, method: string, path: string, now = Date.now()): { header: string; nonce: string } {
  const nonce = crypto.randomBytes(16).toString('hex');
  return { header: `${now}.${nonce}.${mac(key, `${method} ${path} ${now} ${nonce}`)}`, nonce };
}

const equal = (a: string, b: string): boolean => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** Checks a request's header; resolves to its nonce, or null when it is not the partner's. */
export class RequestVerifier {
  private readonly seen = new Map<string, number>();
  constructor(private readonly key: Buffer) {}

  verify(header: string | undefined, method: string, path: string, now = Date.now()): string | null {
    const m = /^(\d+)\.([0-9a-f]{32})\.([0-9a-f]{64})$/.exec(header ?? '');
    if (!m) return null;
    const at = Number(m[1]);
    if (Math.abs(now - at) > SKEW_MS) return null;
    if (!equal(m[3], mac(this.key, `${method} ${path} ${at} ${m[2]}`))) return null;
    for (const [n, t] of this.seen) if (now - t > 2 * SKEW_MS) this.seen.delete(n);
    if (this.seen.has(m[2])) return null;
    this.seen.set(m[2], now);
    return m[2];
  }
}

export const signAnswer = (key: Buffer, nonce: string, body: Buffer): string => mac(key, Buffer.concat([Buffer.from(nonce + '\n'), body]));
export const answerIsSigned = (key: Buffer, nonce: string, body: Buffer, signature: string | undefined): boolean => equal(signature ?? '', signAnswer(key, nonce, body));

/** What a router says of its device API salt: a tag under the shared key, so the two can tell they hold the same one without showing it. */
export const saltTag = (key: Buffer, salt: string): string => mac(key, `device-salt ${salt}`).slice(0, 32);
