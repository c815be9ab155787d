// `npm test`: runs every uvu suite under dist/test (one process, files in name order) and
// ends with a plain "N passed, N failed, N skipped" line. A whole run is bounded in time.
import { spawn } from 'node:child_process';
import path from 'node:path';

const LIMIT_MS = 60 * 60 * 1000;
const uvu = path.join(__dirname, '..', '..', 'node_modules', 'uvu', 'bin.js');
const pattern = process.argv[2] ?? '\\.test\\.js$';
const child = spawn(process.execPath, [uvu, path.join(__dirname), pattern], { stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); process.stdout.write(chunk); });
const timer = setTimeout(() => { process.stderr.write('test run exceeded its time limit\n'); child.kill('SIGKILL'); }, LIMIT_MS);
child.on('exit', (code) => {
  clearTimeout(timer);
  const count = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(out)?.[1] ?? 0);
  const total = count('Total');
  const passed = count('Passed');
  const skipped = count('Skipped');
  const failed = code === 0 ? total - passed - skipped : Math.max(1, total - passed - skipped);
  process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  process.exit(code === 0 && total > 0 ? 0 : 1);
});
