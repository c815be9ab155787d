// Temporary folders for the agent suites: made under the system temp folder and removed
// when the test process exits (children the suites start are gone by then).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
process.once('exit', () => { for (const dir of made) fs.rmSync(dir, { recursive: true, force: true }); });

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
