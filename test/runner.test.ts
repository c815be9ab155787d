// The test runner itself (test/run.ts), run on the small suites of test/fixtures/runner: a
// hook that throws is a failure and not a silent stop, a file that crashes costs that file
// alone, and a suite that cannot run is counted as skipped, never as passed.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
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

t('nothing run is not a pass', () => {
  const r = run(['^no-such-file']);
  assert.is(r.code, 1);
  assert.is(r.closing, 'tests: 0 passed, 0 failed, 0 skipped');
});

t.run();
