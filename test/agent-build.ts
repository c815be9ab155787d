// `npm test` builds what it tests, the device agent too (agent/, a package of its own with
// its own node_modules): `npm --prefix agent ci` when its modules are missing, then
// `npm --prefix agent run build`. When the modules cannot be installed (no npm, no network)
// the agent's suites are skipped with that reason; a build that fails is a failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type AgentBuild = { built: true } | { skip: string } | { fail: string };

/** How to run npm: the npm that runs `npm test`, else `npm` on PATH, else null. */
export function npmCommand(env: NodeJS.ProcessEnv = process.env): string[] | null {
  const cli = env.npm_execpath;
  if (cli && /npm-cli\.c?js$/.test(cli) && fs.existsSync(cli)) return [process.execPath, cli];
  const onPath = (env.PATH ?? '').split(':').filter(Boolean).some((d) => fs.existsSync(path.join(d, 'npm')));
  return onPath ? ['npm'] : null;
}

function npm(cmd: string[], args: string[]): { ok: boolean; why: string } {
  const r = spawnSync(cmd[0], [...cmd.slice(1), ...args], { encoding: 'utf8', timeout: 10 * 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  // What the tool said (npm's own "npm error" lines after it add nothing), else npm's words.
  const lines = (text: string | null) => (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  const own = lines(r.stderr).filter((l) => !/^npm (error|ERR!|warn)/.test(l));
  const last = (own.length ? own : [...lines(r.stderr), ...lines(r.stdout)]).slice(-2).join(' / ');
  return { ok: r.status === 0, why: r.error ? r.error.message : last || `exit ${r.status}` };
}

export function buildAgent(agentDir: string, cmd: string[] | null = npmCommand()): AgentBuild {
  const prefix = ['--prefix', agentDir];
  if (!fs.existsSync(path.join(agentDir, 'node_modules', '.package-lock.json'))) {
    if (cmd === null) return { skip: `the agent's modules are not installed and npm is not on PATH: run \`npm --prefix agent ci\`` };
    process.stdout.write('\ninstalling the agent\'s modules: npm --prefix agent ci\n');
    const ci = npm(cmd, [...prefix, 'ci', '--no-audit', '--no-fund']);
    if (!ci.ok) return { skip: `\`npm --prefix agent ci\` failed (no network?): ${ci.why}` };
  }
  if (cmd === null) return { skip: 'npm is not on PATH to build the agent: run `npm --prefix agent run build`' };
  process.stdout.write('building the agent: npm --prefix agent run build\n');
  const build = npm(cmd, [...prefix, 'run', 'build']);
  return build.ok ? { built: true } : { fail: `the agent does not build (\`npm --prefix agent run build\`): ${build.why}` };
}
