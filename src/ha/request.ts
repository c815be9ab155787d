// A signed GET to the partner's channel (auth.ts): the follower's tail and snapshot requests,
// the primary's look at its partner's role. An answer not signed with the shared key is an
// error; a 401 (the partner refused this router's key) is an answer.
import http from 'node:http';
import { AUTH_HEADER, SIGNATURE_HEADER, answerIsSigned, signRequest } from './auth';

export interface Answer { status: number; body: Buffer }

/** `started` gets the request (so that a caller may destroy it to stop waiting). */
export function signedGet(key: Buffer, partner: URL, pathAndQuery: string, timeoutMs: number, started?: (req: http.ClientRequest) => void): Promise<Answer> {
  const { header, nonce } = signRequest(key, 'GET', pathAndQuery);
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(pathAndQuery, partner), { method: 'GET', headers: { [AUTH_HEADER]: header }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        if (res.statusCode === 401) return resolve({ status: 401, body });
        if (!answerIsSigned(key, nonce, body, res.headers[SIGNATURE_HEADER] as string | undefined)) return reject(new Error('the answer was not signed with the shared key'));
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    started?.(req);
    req.on('timeout', () => req.destroy(new Error(`the partner did not answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
