// Suites that need root (namespaces, nft, wireguard-go) ask here first. Without root they
// skip and say why; in CI (which runs as root) a missing privilege or tool is a failure.
import { execFileSync } from 'node:child_process';

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function hasTool(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** True when the suite can run; false (after printing why) when it must skip outside CI. */
export function canRunAsRoot(suite: string, tools: string[] = ['ip', 'nft', 'wg', 'wireguard-go']): boolean {
  return canRun(suite, tools, true);
}

/** Like canRunAsRoot, for suites that need tools but not root. */
export function canRun(suite: string, tools: string[], needsRoot = false): boolean {
  const missing = tools.filter((t) => !hasTool(t));
  const reason = needsRoot && !isRoot ? 'it needs root' : missing.length ? `missing tools: ${missing.join(', ')}` : null;
  if (reason === null) return true;
  if (process.env.CI) throw new Error(`suite "${suite}" cannot run in CI: ${reason}`);
  console.log(`SKIP suite "${suite}": ${reason}`);
  return false;
}
