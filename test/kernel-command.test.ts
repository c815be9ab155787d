import fs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { run, SECRET_FILE } from '../src/exec/command';

const t = suite('kernel: running tools');

/** The message a promise is rejected with ('' when it resolves). */
const rejection = (p: Promise<unknown>): Promise<string> => p.then(() => '', (err: Error) => err.message);

t('returns what the tool printed', async () => {
  assert.is(await run('sh', ['-c', 'printf "%s" "$1"', 'sh', 'a b; c']), 'a b; c');
});

t('a failing tool\'s own message becomes the error, with its exit code', async () => {
  assert.is(await rejection(run('sh', ['-c', 'echo "Error: no such table" >&2; exit 1'])), 'sh -c failed (exit code 1): Error: no such table');
});

t('a tool that refuses before reading a large input still reports its own message', async () => {
  assert.match(await rejection(run('sh', ['-c', 'echo refused >&2; exit 3'], { input: 'x'.repeat(4 << 20) })), /exit code 3\): refused/);
});

t('a missing tool says so', async () => {
  assert.match(await rejection(run('wgcp-no-such-tool', [])), /wgcp-no-such-tool: not found/);
});

t('a tool that does not answer within its bound is killed and says so, even when it is stopped', async () => {
  const started = Date.now();
  const said = await rejection(run('sh', ['-c', 'kill -STOP $$'], { timeoutMs: 300 }));
  assert.match(said, /did not answer within 0\.3 s and was killed/);
  // Killed, not waited for: a stopped process ignores SIGTERM, and the call would hang.
  assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
});

t('a secret reaches the tool as a 0600 file that is gone afterwards', async () => {
  const out = await run('sh', ['-c', 'stat -c %a "$1"; cat "$1"; echo; echo "$1"', 'sh', SECRET_FILE], { secret: 'private-key-text' });
  const [mode, text, file] = out.trim().split('\n');
  assert.is(mode, '600');
  assert.is(text, 'private-key-text');
  assert.not.ok(out.includes(SECRET_FILE));
  assert.not.ok(fs.existsSync(file));
});

t.run();
