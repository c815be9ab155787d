// `npm test`: every uvu suite file under dist/test, then the agent's unit suites
// (agent/build/test), each file in a process of its own (test/runner-file.ts), in name order,
// so that a file that crashes, hangs or fails in a hook costs that file alone. A suite that
// cannot run (test/helpers/root.ts) says why and counts as skipped, never as passed; with
// CI=true any skip is a failure. Ends with a plain "tests: N passed, N failed, N skipped" line.
//
//   node dist/test/run.js [pattern] [--dir <folder>]... [--file-timeout <seconds>] [--build-agent] [--agent <folder>]
//
// pattern: a regular expression on the file's path (agent files as `agent/<name>`);
// --dir: run the *.test.js of these folders instead (and not the agent's, unless --agent);
// --build-agent (`npm test`): build the agent first (test/agent-build.ts), or skip its suites
// with the reason when its modules cannot be installed; --agent: the agent's folder (agent/).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAgent } from './agent-build';
import type { RunnerEvent } from './runner-file';

const repo = path.join(__dirname, '..', '..');
const started = Date.now();

interface Options { pattern: RegExp; patternGiven: boolean; dirs: string[]; fileTimeoutMs: number; totalTimeoutMs: number; buildAgent: boolean; agentDir: string | null }
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

function parseArgs(argv: string[]): Options {
  const opts: Options = { pattern: /\.test\.js$/, patternGiven: false, dirs: [], fileTimeoutMs: 20 * 60_000, totalTimeoutMs: 60 * 60_000, buildAgent: false, agentDir: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dir') opts.dirs.push(path.resolve(argv[++i]));
    else if (a === '--file-timeout' && Number(argv[i + 1]) > 0) opts.fileTimeoutMs = Number(argv[++i]) * 1000;
    else if (a === '--build-agent') opts.buildAgent = true;
    else if (a === '--agent') opts.agentDir = path.resolve(argv[++i]);
    else { opts.pattern = new RegExp(a); opts.patternGiven = true; }
  }
  return opts;
}

/** The *.test.js files under a folder, by name, with the label the pattern is matched against. */
function testFiles(dir: string, labelPrefix: string): { file: string; label: string }[] {
  const found: { file: string; label: string }[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && e.name !== 'fixtures' && e.name !== 'node_modules') walk(p);
      else if (e.isFile() && e.name.endsWith('.test.js')) found.push({ file: p, label: labelPrefix + path.relative(dir, p) });
    }
  };
  walk(dir);
  return found;
}

interface FileResult { label: string; passed: number; failed: string[]; skipped: string[]; ms: number }

/** One file in its own process; what it did is read back from its events file. */
function runFile(file: string, label: string, opts: Options, eventsDir: string): Promise<FileResult> {
  const events = path.join(eventsDir, `${label.replace(/[^\w.-]/g, '_')}.jsonl`);
  const t0 = Date.now();
  process.stdout.write(`\n${bold(label)}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'runner-file.js'), file], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, WGCP_TEST_EVENTS: events },
    });
    const limit = Math.min(opts.fileTimeoutMs, opts.totalTimeoutMs - (Date.now() - started));
    let timedOut = false;
    let killer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    }, Math.max(1, limit));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      const r: FileResult = { label, passed: 0, failed: [], skipped: [], ms: Date.now() - t0 };
      let done = false;
      const lines = fs.existsSync(events) ? fs.readFileSync(events, 'utf8').split('\n').filter(Boolean) : [];
      for (const line of lines) {
        let e: RunnerEvent;
        try { e = JSON.parse(line) as RunnerEvent; } catch { continue; } // a line cut by a kill
        if (e.type === 'pass') r.passed++;
        else if (e.type === 'fail') r.failed.push(`${label}: ${e.suite ? `${e.suite}: ` : ''}"${e.test}": ${e.error.split('\n')[0]}`);
        else if (e.type === 'skip') r.skipped.push(`${label}: ${e.test ? `${e.suite}: "${e.test}": ` : `suite "${e.suite}": `}${e.reason}`);
        else if (e.type === 'done') done = true;
      }
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (timedOut) r.failed.push(`${label}: stopped after ${Math.round(limit / 1000)} s, the time limit (${how})`);
      else if (!done) r.failed.push(`${label}: the process ended before its suites did (${how})`);
      else if (code !== 0 && r.failed.length === 0) r.failed.push(`${label}: the process exited with ${how}`);
      if (timedOut) process.stdout.write(`\n  FAIL ${label}: stopped at the time limit\n`);
      else if (!done) process.stdout.write(`\n  FAIL ${label}: the process ended before its suites did (${how})\n`);
      resolve(r);
    });
  });
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const files = opts.dirs.length
    ? opts.dirs.flatMap((d) => testFiles(d, ''))
    : testFiles(__dirname, '');
  const problems: string[] = [];
  const runnerSkips: string[] = [];
  const agentDir = opts.agentDir ?? (opts.dirs.length ? null : path.join(repo, 'agent'));
  // The agent (its own package) keeps its suites in <agent>/build/test.
  if (agentDir !== null && (!opts.patternGiven || opts.pattern.test('agent/'))) {
    const built = opts.buildAgent ? buildAgent(agentDir) : null;
    const agentTests = path.join(agentDir, 'build', 'test');
    if (built && 'skip' in built) runnerSkips.push(`agent suites: ${built.skip}`);
    else if (built && 'fail' in built) problems.push(built.fail);
    else if (fs.existsSync(agentTests)) files.push(...testFiles(agentTests, 'agent/'));
    else runnerSkips.push('agent suites: not built: `npm test` builds them, or `npm --prefix agent ci && npm --prefix agent run build`');
  }
  const chosen = files.filter((f) => opts.pattern.test(f.label));
  const eventsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-test-run-'));
  const results: FileResult[] = [];
  // Ctrl-C reaches the running file too; then the run stops instead of going on to the next.
  let interrupted = false;
  process.on('SIGINT', () => { interrupted = true; });
  try {
    for (const [i, f] of chosen.entries()) {
      if (interrupted) { problems.push(`interrupted: ${chosen.length - i} files not run`); break; }
      if (Date.now() - started >= opts.totalTimeoutMs) { problems.push(`${f.label}: not run, the whole run is past its time limit`); continue; }
      results.push(await runFile(f.file, f.label, opts, eventsDir));
    }
  } finally {
    fs.rmSync(eventsDir, { recursive: true, force: true });
  }

  const passed = results.reduce((n, r) => n + r.passed, 0);
  const skipped = [...runnerSkips, ...results.flatMap((r) => r.skipped)];
  const failed = [...results.flatMap((r) => r.failed), ...problems];
  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 5).map((r) => `${r.label} ${(r.ms / 1000).toFixed(1)} s`);
  const out: string[] = [''];
  out.push(`${results.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s; slowest: ${slowest.join(', ')}`);
  if (skipped.length) out.push('', 'skipped:', ...skipped.map((s) => `  SKIP ${s}`));
  if (failed.length) out.push('', 'failed:', ...failed.map((s) => `  FAIL ${s}`));
  const ciSkips = Boolean(process.env.CI) && skipped.length > 0;
  if (ciSkips) out.push('', 'CI is set: every skip above is a failure');
  if (chosen.length === 0) out.push('', `no test file matches ${opts.pattern}`);
  out.push('', `tests: ${passed} passed, ${failed.length} failed, ${skipped.length} skipped`, '');
  process.stdout.write(out.join('\n'));
  process.exit(failed.length === 0 && !ciSkips && passed + skipped.length > 0 ? 0 : 1);
}

void main();
