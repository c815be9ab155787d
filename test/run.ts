// `npm test`: runs every uvu suite under dist/test (one process, files in name order), then
// the agent's unit suites (agent/build/test), and
// ends with a plain "N passed, N failed, N skipped" line. A whole run is bounded in time.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const LIMIT_MS = 60 * 60 * 1000;
const repo = path.join(__dirname, '..', '..');
const uvu = path.join(repo, 'node_modules', 'uvu', 'bin.js');
const pattern = process.argv[2] ?? '\\.test\\.js$';
const started = Date.now();
const totals = { passed: 0, failed: 0, skipped: 0, total: 0 };

/** One uvu process over a folder; its counts are added to the totals. */
function runUvu(bin: string, dir: string, filePattern: string): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, dir, filePattern], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); process.stdout.write(chunk); });
    const timer = setTimeout(() => { process.stderr.write('test run exceeded its time limit\n'); child.kill('SIGKILL'); }, Math.max(1, LIMIT_MS - (Date.now() - started)));
    child.on('exit', (code) => {
      clearTimeout(timer);
      const count = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(out)?.[1] ?? 0);
      const total = count('Total');
      const passed = count('Passed');
      const skipped = count('Skipped');
      // A suite whose before-hook throws leaves uvu exiting 0 with tests neither passed nor skipped.
      totals.failed += code === 0 ? total - passed - skipped : Math.max(1, total - passed - skipped);
      Object.assign(totals, { passed: totals.passed + passed, skipped: totals.skipped + skipped, total: totals.total + total });
      resolve();
    });
  });
}

/** The agent (agent/, its own package) keeps its unit suites in agent/build/test: `npm --prefix agent run build`. */
async function runAgentSuites(): Promise<void> {
  const dir = path.join(repo, 'agent', 'build', 'test');
  if (!fs.existsSync(dir)) {
    if (process.argv[2] === undefined) {
      process.stdout.write('agent suites are not built: run `npm --prefix agent ci && npm --prefix agent run build`\n');
      totals.failed += 1;
    }
    return;
  }
  const re = new RegExp(pattern);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.test.js') && re.test(`agent/${f}`));
  if (files.length === 0) return;
  const only = `^(${files.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;
  await runUvu(path.join(repo, 'agent', 'node_modules', 'uvu', 'bin.js'), dir, only);
}

(async () => {
  await runUvu(uvu, path.join(__dirname), pattern);
  await runAgentSuites();
  const { passed, failed, skipped, total } = totals;
  process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  process.exit(failed === 0 && total > 0 ? 0 : 1);
})();
