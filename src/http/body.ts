// Reads a JSON object body with a hard size limit, so a client cannot make us buffer
// more than `limit` bytes whatever Content-Length claims.
import type { IncomingMessage } from 'node:http';
import createError from 'http-errors';

export const CONTROL_BODY_LIMIT = 1024 * 1024;
export const DEVICE_BODY_LIMIT = 64 * 1024;

export function readJsonBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      req.resume();
      reject(createError(413, `request body is larger than ${limit} bytes`));
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
        reject(createError(413, `request body is larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (err) => { if (!failed) { failed = true; reject(createError(400, `request body could not be read: ${err.message}`)); } });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return reject(createError(400, 'request body must be a JSON object'));
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
