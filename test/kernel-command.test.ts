import fs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { run, SECRET_FILE } from '../src/kernel/command';

const t = suite('kernel: running tools');

t('returns what the tool printed', () => {
  assert.is(run('sh', ['-c', 'printf "%s" "$1"', 'sh', 'a b; c']), 'a b; c');
});

t('a failing tool\'s own message becomes the error, with its exit code', () => {
  assert.throws(() => run('sh', ['-c', 'echo "Error: no such table" >&2; exit 1']), (e: Error) => e.message === 'sh -c failed (exit code 1): Error: no such table');
});

t('a tool that refuses before reading a large input still reports its own message', () => {
  assert.throws(() => run('sh', ['-c', 'echo refused >&2; exit 3'], { input: 'x'.repeat(4 << 20) }), /exit code 3\): refused/);
});

t('a missing tool says so', () => {
  assert.throws(() => run('wgcp-no-such-tool', []), /wgcp-no-such-tool: not found/);
});

t('a secret reaches the tool as a 0600 file that is gone afterwards', () => {
  const out = run('sh', ['-c', 'stat -c %a "$1"; cat "$1"; echo; echo "$1"', 'sh', SECRET_FILE], { secret: 'private-key-text' });
  const [mode, text, file] = out.trim().split('\n');
  assert.is(mode, '600');
  assert.is(text, 'private-key-text');
  assert.not.ok(out.includes(SECRET_FILE));
  assert.not.ok(fs.existsSync(file));
});

t.run();
