// Reads a JSON object body with a hard size limit, so a client cannot make us buffer
// more than `limit` bytes whatever Content-Length claims, and a nesting bound checked in
// one linear pass before JSON.parse, so no body can make the parse itself costly.
import type { IncomingMessage } from 'node:http';
import createError from 'http-errors';

export const CONTROL_BODY_LIMIT = 1024 * 1024;
/**
 * A route without credentials (the sign-in) takes this much: its largest real body is a
 * 512-character key and a 32-character code, about 3.3 KiB even with every character
 * escaped as \uXXXX. Anyone may send it, so it stays small (docs/api.md).
 */
export const PUBLIC_BODY_LIMIT = 4 * 1024;
/**
 * The device API's bodies, also without credentials: the largest the contract's fields
 * allow is a heartbeat with a 1,024-character `state` all escaped (6 KiB) beside its other
 * fields; a provision (a UUID and a 128-character hwid) is under 1 KiB. The most any route
 * without credentials may take (http/server.ts refuses a table that asks more).
 */
export const DEVICE_BODY_LIMIT = 8 * 1024;
/** No body wgcp takes nests deeper than a few levels (a webhook's headers, a schedule's rules). */
export const MAX_JSON_DEPTH = 32;

const tooLarge = (limit: number) => createError(413, `request body is larger than ${limit} bytes`, { headers: { Connection: 'close' } });

/** The deepest nesting of `text` read as JSON, stopping once past `max`; strings are skipped. */
export function jsonDepthOver(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export function readJsonBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      // Refused on the header alone: not a byte of the body is read, and the connection closes.
      req.resume();
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (err) => { if (!failed) { failed = true; reject(createError(400, `request body could not be read: ${err.message}`)); } });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return reject(createError(400, 'request body must be a JSON object'));
      if (jsonDepthOver(text, MAX_JSON_DEPTH)) return reject(createError(400, `request body nests deeper than ${MAX_JSON_DEPTH} levels`));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return reject(createError(400, 'malformed JSON in request body'));
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        return reject(createError(400, 'request body must be a JSON object'));
      }
      resolve(parsed as Record<string, unknown>);
    });
  });
}
