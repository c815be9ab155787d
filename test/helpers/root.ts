// Every suite declares here what it needs beyond Node: tools on PATH, Python modules
// (`python3:<module>`), root. A suite that cannot run skips and says why, and `npm test`
// (test/run.ts) counts it as skipped, never as passed. In CI (CI=true, as root with every
// package installed) a missing privilege, tool or module is a failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, type Test } from 'uvu';

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

const pathDirs = () => (process.env.PATH ?? '').split(':').filter(Boolean);

/**
 * The python3 the suites run: Debian's /usr/bin/python3 (where its python3-* packages
 * install) when /usr/bin is on PATH, else the first python3 on PATH.
 */
export const PYTHON3 = pathDirs().includes('/usr/bin') && fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function hasTool(tool: string): boolean {
  return pathDirs().some((dir) => {
    try {
      fs.accessSync(path.join(dir, tool), fs.constants.X_OK);
      return fs.statSync(path.join(dir, tool)).isFile();
    } catch {
      return false;
    }
  });
}

function runs(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/** Why these requirements are not met (tools, then `python3:<module>`), or null when they are. */
export function unmet(requirements: string[], needsRoot = false): string | null {
  const modules = requirements.filter((r) => r.startsWith('python3:')).map((r) => r.slice('python3:'.length));
  const tools = requirements.filter((r) => !r.startsWith('python3:'));
  if (modules.length && !tools.includes('python3')) tools.push('python3');
  const missingTools = tools.filter((t) => (t === 'python3' ? !runs(PYTHON3, ['-c', '']) : !hasTool(t)));
  const missingModules = missingTools.includes('python3') ? modules : modules.filter((m) => !runs(PYTHON3, ['-c', `import ${m}`]));
  const reasons = [
    ...(needsRoot && !isRoot ? ['it needs root'] : []),
    ...(missingTools.length ? [`missing tools: ${missingTools.join(', ')}`] : []),
    ...(missingModules.length ? [`missing Python modules: ${missingModules.join(', ')}`] : []),
  ];
  return reasons.length ? reasons.join('; ') : null;
}

/** True when the suite can run; false (after printing why) when it must skip outside CI. */
export function canRunAsRoot(suite: string, tools: string[] = ['ip', 'nft', 'wg', 'wireguard-go']): boolean {
  return canRun(suite, tools, true);
}

/**
 * uvu's suite(name), declared with what it needs: when that is missing, the suite says why
 * and its run() does nothing, so none of its tests runs (or counts as passed).
 */
export function suiteNeeding(name: string, requirements: string[], opts: { root?: boolean } = {}): Test {
  const t = suite(name);
  if (!canRun(name, requirements, opts.root)) t.run = () => {};
  return t;
}

/** Like canRunAsRoot, for suites that need tools (or Python modules) but not root. */
export function canRun(suite: string, requirements: string[], needsRoot = false): boolean {
  const reason = unmet(requirements, needsRoot);
  return reason === null || skip(suite, reason);
}

/**
 * A suite (or a part of one) that cannot run: says why and tells the runner, which counts it
 * as skipped. In CI it throws instead. Always false, for `if (!ok) return skip(...)`.
 */
export function skip(suite: string, reason: string): false {
  if (process.env.CI) throw new Error(`suite "${suite}" cannot run in CI: ${reason}`);
  // test/runner-file.ts listens under this name: it prints the skip and counts it.
  const report = (globalThis as Record<symbol, unknown>)[Symbol.for('wgcp.test.skip')];
  if (typeof report === 'function') report(suite, reason);
  else console.log(`SKIP suite "${suite}": ${reason}`);
  return false;
}
