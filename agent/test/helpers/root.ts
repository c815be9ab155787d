// Suites that need root and network tools ask here: without them they skip and say why,
// but in CI (CI=true, which runs as root) a missing privilege or tool is a failure.
import { execFileSync } from 'node:child_process';

export function canRunAsRoot(suite: string, tools: string[]): boolean {
  const missing = tools.filter((t) => { try { execFileSync('sh', ['-c', `command -v ${t}`], { stdio: 'ignore' }); return false; } catch { return true; } });
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const reason = !root ? 'it needs root' : missing.length ? `missing tools: ${missing.join(', ')}` : null;
  if (reason === null) return true;
  if (process.env.CI) throw new Error(`suite "${suite}" cannot run in CI: ${reason}`);
  console.log(`SKIP suite "${suite}": ${reason}`);
  return false;
}
