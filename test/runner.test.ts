// The test runner itself (test/run.ts), run on the small suites of test/fixtures/runner: a
// hook that throws is a failure and not a silent stop, a file that crashes costs that file
// alone, and a suite that cannot run is counted as skipped, never as passed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';

const t = suite('test runner');
const fixtures = path.join(__dirname, 'fixtures', 'runner');

function run(args: string[], env: Record<string, string> = {}): { code: number | null; out: string; closing: string } {
  const base = { ...process.env };
  delete base.CI;
  const r = spawnSync(process.execPath, [path.join(__dirname, 'run.js'), '--dir', fixtures, ...args], { env: { ...base, ...env }, encoding: 'utf8', timeout: 60_000 });
  const out = r.stdout + r.stderr;
  return { code: r.status, out, closing: /^tests: .*$/m.exec(out)?.[0] ?? `no closing line in:\n${out}` };
}

t('a hook that throws fails its suite, a crash costs its file alone, a forgotten t.run() is a failure, and every file runs', () => {
  const r = run(['^(?!h-)']);
  assert.is(r.code, 1);
  assert.is(r.closing, 'tests: 8 passed, 8 failed, 3 skipped');
  const failed = r.out.slice(r.out.indexOf('\nfailed:\n')).split('\n').filter((l) => l.startsWith('  FAIL '));
  assert.equal(failed, [
    '  FAIL b-before-throws.test.js: before throws: "before hook": set-up broke',
    '  FAIL b-before-throws.test.js: before throws: "first": not run: the before hook failed',
    '  FAIL b-before-throws.test.js: before throws: "second": not run: the before hook failed',
    '  FAIL c-after-throws.test.js: after throws: "after hook": clean-up broke',
    '  FAIL e-exits.test.js: the process ended before its suites did (code 7)',
    '  FAIL f-throws-at-load.test.js: "loading the file": broken at load',
    '  FAIL g-uncaught.test.js: uncaught: "throws from a timer": uncaught: thrown from a timer',
    '  FAIL i-no-run.test.js: forgot to run: "running": tests registered but never run (1): is t.run() missing?',
  ]);
  // The suite after each broken one ran: in the same file, and in the last file.
  assert.match(r.out, / after the broken set-up {2}• {2}\(1 \/ 1\)/);
  assert.match(r.out, / after the broken clean-up {2}• {2}\(1 \/ 1\)/);
  assert.match(r.out, / last file {2}• {2}\(1 \/ 1\)/);
});

t('a suite or a part that cannot run is counted as skipped, with its reason, and not as passed', () => {
  const r = run(['^(a|d)-']);
  assert.is(r.code, 0, r.out);
  assert.is(r.closing, 'tests: 3 passed, 0 failed, 3 skipped');
  assert.match(r.out, /SKIP d-skips\.test\.js: suite "whole suite": missing tools: wgcp-no-such-tool/);
  assert.match(r.out, /SKIP d-skips\.test\.js: parts that skip: "returns early without its tool": tool part: missing tools: wgcp-no-such-tool/);
  assert.match(r.out, /SKIP d-skips\.test\.js: parts that skip: "returns early without its Python module": module part: missing (Python modules: wgcp_no_such_module|tools: python3)/);
  assert.match(r.out, / parts that skip {2}- - • {2}\(1 \/ 3\)/);
});

t('with CI=true a suite that cannot run is a failure', () => {
  const r = run(['^(a|d)-'], { CI: 'true' });
  assert.is(r.code, 1);
  assert.match(r.out, /FAIL d-skips\.test\.js: "loading the file": suite "whole suite" cannot run in CI: missing tools: wgcp-no-such-tool/);
  assert.is(r.closing, 'tests: 2 passed, 1 failed, 0 skipped');
});

t('a file past its time limit is stopped and failed, and the next file runs', () => {
  const r = run(['--file-timeout', '1', '^(h|z)-']);
  assert.is(r.code, 1);
  assert.match(r.out, /FAIL h-hangs\.test\.js: stopped after 1 s, the time limit/);
  assert.is(r.closing, 'tests: 1 passed, 1 failed, 0 skipped');
});

/**
 * An agent package for --agent, under dist/test/fixtures so its suites find uvu: its build script
 * copies a passing suite into build/test, or fails; `installed` writes the marker npm ci leaves.
 */
function fakeAgent(opts: { installed: boolean; buildFails?: boolean }): string {
  const dir = fs.mkdtempSync(path.join(fixtures, '..', 'fake-agent-')); // under fixtures/: never taken for a suite
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const suiteFile = path.join(fixtures, 'a-passes.test.js');
  fs.writeFileSync(path.join(dir, 'build.js'), opts.buildFails
    ? 'console.error("src/main.ts(1,1): error TS2304: Cannot find name \'oops\'."); process.exit(2);\n'
    : `const fs = require('fs'); fs.mkdirSync(__dirname + '/build/test', { recursive: true }); fs.copyFileSync(${JSON.stringify(suiteFile)}, __dirname + '/build/test/agent-unit.test.js');\n`);
  // A dependency npm cannot fetch offline: `npm ci` fails as it does without a network.
  const dep = { version: '1.0.0', resolved: 'http://127.0.0.1:9/wgcp-no-such-package-1.0.0.tgz', integrity: 'sha512-' + 'A'.repeat(86) + '==' };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'fake-agent', version: '1.0.0', private: true, scripts: { build: 'node build.js' }, dependencies: { 'wgcp-no-such-package': '1.0.0' } }));
  fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ name: 'fake-agent', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'fake-agent', version: '1.0.0', dependencies: { 'wgcp-no-such-package': '1.0.0' } }, 'node_modules/wgcp-no-such-package': dep } }));
  if (opts.installed) {
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.writeFileSync(path.join(dir, 'node_modules', '.package-lock.json'), '{}');
  }
  return dir;
}
const OFFLINE = { npm_config_offline: 'true', npm_config_fetch_retries: '0', npm_config_cache: '/nonexistent-wgcp-npm-cache' };

t('nothing run is not a pass', () => {
  const r = run(['^no-such-file']);
  assert.is(r.code, 1);
  assert.is(r.closing, 'tests: 0 passed, 0 failed, 0 skipped');
});

t.run();

// Building the agent runs the real npm (on fake agents it can build offline): where npm is
// missing (a machine with Node alone) these are a named skip.
const b = suiteNeeding('test runner: building the agent', ['npm']);

b('--build-agent builds the agent and runs its suites as agent/<name>', () => {
  const agent = fakeAgent({ installed: true });
  const r = run(['^(a-|agent/)', '--build-agent', '--agent', agent], OFFLINE);
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /building the agent: npm --prefix agent run build/);
  assert.match(r.out, /\nagent\/agent-unit\.test\.js\n/);
  assert.is(r.closing, 'tests: 4 passed, 0 failed, 0 skipped');
});

b('when the agent\'s modules cannot be installed (no network), its suites are skipped with the reason', () => {
  const agent = fakeAgent({ installed: false });
  const r = run(['^(a-|agent/)', '--build-agent', '--agent', agent], OFFLINE);
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /SKIP agent suites: `npm --prefix agent ci` failed \(no network\?\): /);
  assert.not.match(r.out, /agent-unit/);
  assert.is(r.closing, 'tests: 2 passed, 0 failed, 1 skipped');
  const noNpm = run(['^(a-|agent/)', '--build-agent', '--agent', agent], { PATH: '/nonexistent', npm_execpath: '' });
  assert.match(noNpm.out, /SKIP agent suites: the agent's modules are not installed and npm is not on PATH/);
  assert.is(noNpm.closing, 'tests: 2 passed, 0 failed, 1 skipped');
  const ci = run(['^(a-|agent/)', '--build-agent', '--agent', agent], { ...OFFLINE, CI: 'true' });
  assert.is(ci.code, 1, 'with CI set the skip is a failure');
});

b('an agent that does not build is a failure, and one never built is a named skip', () => {
  const broken = run(['^(a-|agent/)', '--build-agent', '--agent', fakeAgent({ installed: true, buildFails: true })], OFFLINE);
  assert.is(broken.code, 1);
  assert.match(broken.out, /FAIL the agent does not build \(`npm --prefix agent run build`\): .*error TS2304/);
  const unbuilt = run(['^(a-|agent/)', '--agent', fakeAgent({ installed: true })]);
  assert.match(unbuilt.out, /SKIP agent suites: not built: `npm test` builds them/);
});

b.run();
