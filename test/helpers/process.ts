// Runs the built daemon (dist/src/main.js) as a child process and reads its JSON log.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const DAEMON_JS = path.join(__dirname, '..', '..', 'src', 'main.js');

export interface DaemonProcess {
  child: ChildProcess;
  lines: Record<string, any>[];
  raw: () => string;
  url: string;
  exited: Promise<number | null>;
}

/** Starts wgcpd and resolves once it logs that it listens (or rejects when it exits first). */
export function spawnDaemon(env: Record<string, string>, cmd: string[] = [process.execPath, DAEMON_JS]): Promise<DaemonProcess> {
  const child = spawn(cmd[0], cmd.slice(1), { env: { PATH: process.env.PATH ?? '', WGCP_LISTEN: '127.0.0.1:0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const lines: Record<string, any>[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const parts = out.split('\n');
      out = parts.pop()!;
      for (const p of parts) {
        const line = JSON.parse(p);
        lines.push(line);
        if (line.msg === 'wgcpd is listening') resolve({ child, lines, raw: () => lines.map((l) => JSON.stringify(l)).join('\n') + err, url: `http://127.0.0.1:${line.port}`, exited });
      }
    });
    void exited.then((code) => reject(Object.assign(new Error(`wgcpd exited with ${code}: ${err}`), { code, stderr: err })));
  });
}
