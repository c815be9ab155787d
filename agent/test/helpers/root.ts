// Suites that need root or tools ask here: without them they skip and say why, but in CI
// (CI=true, which runs as root) a missing privilege or tool is a failure. Under the
// repository's `npm test` (test/runner-file.ts) a skip is counted as skipped, never as passed.
import { execFileSync } from 'node:child_process';

export function canRunAsRoot(suite: string, tools: string[]): boolean {
  return canRun(suite, tools, true);
}

/** Like canRunAsRoot, for suites (or parts of one) that need tools but not root. */
export function canRun(suite: string, tools: string[], needsRoot = false): boolean {
  const missing = tools.filter((t) => { try { execFileSync('sh', ['-c', `command -v ${t}`], { stdio: 'ignore' }); return false; } catch { return true; } });
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const reason = needsRoot && !root ? 'it needs root' : missing.length ? `missing tools: ${missing.join(', ')}` : null;
  if (reason === null) return true;
  if (process.env.CI) throw new Error(`suite "${suite}" cannot run in CI: ${reason}`);
  const report = (globalThis as Record<symbol, unknown>)[Symbol.for('wgcp.test.skip')];
  if (typeof report === 'function') report(suite, reason);
  else console.log(`SKIP suite "${suite}": ${reason}`);
  return false;
}
