// The daemon's own socket in its data folder: the control API for `wgcp` on the router
// itself, so that its changes (an import) go through the running daemon's change runner
// and reach the kernel, the events and the page at once. The file is the daemon's, mode
// 0600 in a 0700 folder: whoever can open it is the router's root, so it asks no key.
import fs from 'node:fs';
import http from 'node:http';
import { adminSocketPath } from '../backup/daemon-reload';
import type { Actor } from '../store/audit';

/** Who asks through the socket: `wgcp` run by the router's root. */
export const ADMIN_SOCKET_ACTOR: Actor = { kind: 'cli', id: null, name: 'wgcp (admin socket)', role: 'admin', address: null };

/** Listens on the data folder's socket (a stale file from a killed daemon is replaced); null where a socket cannot be made there. */
export async function listenAdminSocket(dataDir: string, handler: http.RequestListener): Promise<http.Server | null> {
  const file = adminSocketPath(dataDir);
  // A Unix socket's path is at most 107 bytes.
  if (Buffer.byteLength(file) > 107) return null;
  fs.rmSync(file, { force: true });
  const server = http.createServer({ requestTimeout: 120_000 }, handler);
  const old = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, () => { server.off('error', reject); resolve(); });
    });
  } finally {
    process.umask(old);
  }
  fs.chmodSync(file, 0o600);
  return server;
}

export async function closeAdminSocket(server: http.Server | null, dataDir: string): Promise<void> {
  if (!server) return;
  await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
  fs.rmSync(adminSocketPath(dataDir), { force: true });
}
