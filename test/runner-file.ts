// Runs the uvu suites of one test file (argv[2]) in this process, for test/run.ts. The file's
// `suite` from uvu is swapped for one with uvu's API (tests, before/after and their .each,
// .only, .skip, .run) that keeps going when something fails: an error in a hook fails the
// suite (and a before hook's leaves its tests counted failed, not run), and the next suite
// runs all the same. A skip said through test/helpers/root.ts counts as skipped: said at load
// time or in a hook it is the suite's, said in a test it is that test's (then not a pass).
// What happened goes to the file WGCP_TEST_EVENTS names, one JSON line an event, so that the
// runner knows it even when this process dies half-way.
import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';

type State = Record<string, unknown> & { __suite__: string; __test__: string };
type Fn = (state: State) => unknown;
interface Test { name: string; fn: Fn }
interface Suite { name: string; state: State; tests: Test[]; only: Test[]; before: Fn[]; after: Fn[]; beforeEach: Fn[]; afterEach: Fn[]; skips: number }

export type RunnerEvent =
  | { type: 'pass'; suite: string; test: string }
  | { type: 'fail'; suite: string; test: string; error: string }
  | { type: 'skip'; suite: string; test?: string; reason: string }
  | { type: 'done' };
// suite '' is the file itself (loading it, or what it left running).

/** The name test/helpers/root.ts (and the agent's) call with a skip, when a runner listens. */
export const SKIP_REPORTER = Symbol.for('wgcp.test.skip');

const file = path.resolve(process.argv[2] ?? '');
const eventsFile = process.env.WGCP_TEST_EVENTS;
const tty = process.stdout.isTTY === true;
const paint = (code: string) => (s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const [red, green, gray, yellow, bold] = ['31', '32', '90', '33', '1'].map(paint);

function emit(event: RunnerEvent): void {
  if (eventsFile) fs.appendFileSync(eventsFile, JSON.stringify(event) + '\n');
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return inspect(err);
  const details = (err as { details?: unknown }).details;
  const stack = (err.stack ?? '').split('\n').slice(1).filter((l) => !/\(node:|node:internal|runner-file\.js/.test(l)).join('\n');
  return `${err.message}${typeof details === 'string' && details ? `\n${details}` : ''}${stack ? `\n${gray(stack)}` : ''}`;
}

const queue: Suite[] = [];
const made: Array<() => Suite> = [];
let skipsSaid = 0;
/** Where a skip said now belongs: the running test, else the suite being set up, else the file. */
let current: { suite: string; test?: string; skips: string[] } | null = null;

(globalThis as Record<symbol, unknown>)[SKIP_REPORTER] = (label: string, reason: string) => {
  skipsSaid++;
  if (current?.test !== undefined) {
    current.skips.push(`${label}: ${reason}`);
  } else {
    emit({ type: 'skip', suite: label, reason });
    process.stdout.write(`${yellow('SKIP')} suite "${label}": ${reason}\n`);
  }
};

function newSuite(name: string, state: State): Suite {
  return { name, state, tests: [], only: [], before: [], after: [], beforeEach: [], afterEach: [], skips: 0 };
}

/** uvu's `suite()`, as test files call it. */
function suite(name = '', state: Record<string, unknown> = {}) {
  let s = newSuite(name, Object.assign(state, { __suite__: name, __test__: '' }) as State);
  const test = (tname: string, fn: Fn) => { s.tests.push({ name: tname, fn }); };
  test.before = Object.assign((fn: Fn) => { s.before.push(fn); }, { each: (fn: Fn) => { s.beforeEach.push(fn); } });
  test.after = Object.assign((fn: Fn) => { s.after.push(fn); }, { each: (fn: Fn) => { s.afterEach.push(fn); } });
  test.only = (tname: string, fn: Fn) => { s.only.push({ name: tname, fn }); };
  test.skip = () => { s.skips += 1; };
  test.run = () => { queue.push(s); s = newSuite(name, s.state); };
  made.push(() => s);
  return test;
}

async function runSuite(s: Suite): Promise<void> {
  const out = (text: string) => process.stdout.write(text);
  const notes: string[] = [];
  const fail = (test: string, err: unknown) => {
    const error = describe(err);
    emit({ type: 'fail', suite: s.name, test, error });
    notes.push(`  ${red('FAIL')} ${bold(s.name)} "${test}"\n${error.replace(/^/gm, '    ')}\n`);
  };
  const tests = s.only.length ? s.only : s.tests;
  let counted = 0;
  out(`${bold(` ${s.name} `)} `);
  let setUp = true;
  current = { suite: s.name, skips: [] };
  for (const hook of s.before) {
    try { await hook(s.state); } catch (err) { fail('before hook', err); setUp = false; break; }
  }
  for (const t of tests) {
    if (!setUp) { fail(t.name, new Error('not run: the before hook failed')); out(red('✘ ')); continue; }
    s.state.__test__ = t.name;
    current = { suite: s.name, test: t.name, skips: [] };
    let error: unknown = null;
    try {
      for (const hook of s.beforeEach) await hook(s.state);
      await t.fn(s.state);
    } catch (err) { error = err; }
    try {
      for (const hook of s.afterEach) await hook(s.state);
    } catch (err) { error ??= err; }
    const skips = current.skips;
    current = { suite: s.name, skips: [] };
    if (error !== null) { fail(t.name, error); out(red('✘ ')); }
    else if (skips.length) {
      emit({ type: 'skip', suite: s.name, test: t.name, reason: skips.join('; ') });
      notes.push(`  ${yellow('SKIP')} ${bold(s.name)} "${t.name}"\n${skips.map((r) => `    ${r}`).join('\n')}\n`);
      out(yellow('- '));
    }
    else { emit({ type: 'pass', suite: s.name, test: t.name }); out(gray('• ')); counted++; }
  }
  s.state.__test__ = '';
  for (const hook of s.after) {
    try { await hook(s.state); } catch (err) { fail('after hook', err); }
  }
  current = null;
  const skipped = s.skips + (s.only.length ? s.tests.length : 0);
  for (let i = 0; i < skipped; i++) emit({ type: 'skip', suite: s.name, reason: s.only.length ? 'not in .only' : 't.skip' });
  out(`${(notes.some((n) => n.includes('FAIL')) ? red : green)(` (${counted} / ${tests.length})`)}\n`);
  if (notes.length) out(`\n${notes.join('\n')}\n`);
}

async function main(): Promise<void> {
  // The file's `import { suite } from 'uvu'` reads the property at each call: swap it first.
  let uvuPath: string;
  try { uvuPath = require.resolve('uvu', { paths: [path.dirname(file)] }); } catch { uvuPath = require.resolve('uvu'); }
  const uvu = require(uvuPath) as Record<string, unknown>;
  uvu.suite = suite;
  uvu.test = suite();
  process.on('SIGTERM', () => process.exit(1)); // the runner's time limit: still run the exit handlers
  process.on('uncaughtException', (err) => {
    const error = describe(err);
    emit({ type: 'fail', suite: current?.suite ?? '', test: current?.test ?? 'outside any test', error: `uncaught: ${error}` });
    emit({ type: 'done' }); // what follows in the file does not run: the account ends here
    process.stdout.write(`\n  ${red('FAIL')} uncaught error, the file stops here\n${error.replace(/^/gm, '    ')}\n`);
    process.exit(1);
  });
  current = { suite: '', skips: [] };
  let loaded = false;
  try {
    require(file);
    loaded = true;
  } catch (err) {
    const error = describe(err);
    emit({ type: 'fail', suite: '', test: 'loading the file', error });
    process.stdout.write(`  ${red('FAIL')} loading ${path.basename(file)}\n${error.replace(/^/gm, '    ')}\n\n`);
  }
  current = null;
  for (const s of queue) await runSuite(s);
  // Tests registered and never run, with no skip said for them: a t.run() is missing.
  const unrun = made.map((get) => get()).filter((s) => s.tests.length + s.only.length > 0);
  if (loaded && unrun.length && skipsSaid === 0) {
    for (const s of unrun) {
      emit({ type: 'fail', suite: s.name, test: 'running', error: `tests registered but never run (${s.tests.length + s.only.length}): is t.run() missing?` });
      process.stdout.write(`  ${red('FAIL')} ${bold(s.name)}: tests registered but never run (is t.run() missing?)\n`);
    }
  }
  emit({ type: 'done' });
  // Whatever a file leaves running (a server, a timer) must not hold the run: say it and end.
  setTimeout(() => {
    emit({ type: 'fail', suite: '', test: 'ending', error: 'the process was still busy 10 s after its last suite (a server, child or timer left running)' });
    process.stdout.write(`  ${red('FAIL')} ${path.basename(file)} still had work running 10 s after its last suite\n`);
    process.exit(1);
  }, 10_000).unref();
}

if (require.main === module) void main();
