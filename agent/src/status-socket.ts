// The running agent answers `wgcp-agent status` on a socket in its state folder with the
// record it holds in memory. The record on disk takes an answered heartbeat's time only once
// an hour (flash wear, persist.ts): read from the process, the last heartbeat is exact, and
// the socket costs no write but its making at start. Mode 0600, in the 0700 state folder:
// only the agent's user (and root) may ask.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { AgentRecord } from './machine';
import { parseRecord } from './persist';

export const STATUS_SOCKET = 'agent.sock';

export interface StatusServer { close(): Promise<void> }

/** Listens on <dir>/agent.sock; each connection gets `snapshot()` as one JSON line. */
export function serveStatus(dir: string, snapshot: () => AgentRecord | null): Promise<StatusServer> {
  const file = path.join(dir, STATUS_SOCKET);
  // Left by an agent that was killed: the folder is claimed (lock.ts), so it is no one's.
  fs.rmSync(file, { force: true });
  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(JSON.stringify({ record: snapshot() }) + '\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => {
      fs.chmodSync(file, 0o600);
      resolve({
        close: () => new Promise<void>((done) => server.close(() => { fs.rmSync(file, { force: true }); done(); })),
      });
    });
  });
}

/** The running agent's record, or null when no agent answers on the folder's socket in time. */
export function askRunningAgent(dir: string, timeoutMs: number): Promise<AgentRecord | null> {
  return new Promise((resolve) => {
    let text = '';
    const socket = net.connect(path.join(dir, STATUS_SOCKET));
    const timer = setTimeout(() => { socket.destroy(); resolve(null); }, timeoutMs);
    const finish = (record: AgentRecord | null) => { clearTimeout(timer); resolve(record); };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => { text += chunk; });
    socket.on('error', () => finish(null));
    socket.on('end', () => {
      try {
        const answer = JSON.parse(text) as { record: unknown };
        finish(answer.record === null ? null : parseRecord(answer.record));
      } catch {
        finish(null);
      }
    });
  });
}
