// Asks the running wgcpd through its socket in the data folder (src/http/admin-socket.ts):
// the CLI's changes then go through the daemon's own change runner.
import fs from 'node:fs';
import http from 'node:http';
import { adminSocketPath } from '../backup/daemon-reload';

export interface DaemonAnswer { status: number; json: any }

/**
 * The daemon's answer, or null when no daemon listens on the folder's socket. With
 * `timeoutMs`, a daemon that has not answered by then (stopped, hung) fails with ETIMEDOUT.
 */
export function askDaemon(dataDir: string, method: string, pathname: string, body?: unknown, timeoutMs?: number): Promise<DaemonAnswer | null> {
  const socketPath = adminSocketPath(dataDir);
  if (!fs.existsSync(socketPath)) return Promise.resolve(null);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, method, path: pathname, headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try { json = JSON.parse(text); } catch { json = { error: text }; }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    if (timeoutMs !== undefined) {
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`wgcpd did not answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    }
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? resolve(null) : reject(err)));
    req.end(payload);
  });
}
