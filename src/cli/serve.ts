// `wgcp serve`: runs wgcpd in the foreground as a child process, so the admin command never
// loads the daemon's code; signals are passed on and its exit code becomes ours.
// (The units run wgcpd itself: systemd's readiness comes from the main process.)
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

export function runServe(dataDir: string): void {
  const daemon = path.join(__dirname, '..', 'main.js');
  const child = spawn(process.execPath, [daemon], { stdio: 'inherit', env: { ...process.env, WGCP_DATA_DIR: dataDir } });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? 128 + (signal ? os.constants.signals[signal] : 0);
  });
}
