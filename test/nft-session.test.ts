// The long-lived nft session's protocol, against a stand-in `nft -i` first on PATH (no root):
// one line a batch, the end line's error closing each answer, deaths and hangs survived.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NftSession } from '../src/nft/session';
import { tempDir } from './helpers/daemon';

const t = suite('nft session');

// Answers like nft -i: silence for a committed line, an error block for a refused one.
const FAKE_NFT = `#!/bin/sh
[ "$1" = -i ] || exit 2
while IFS= read -r line; do
  case "$line" in
    wgcp-batch-end-*) printf 'Error: syntax error, unexpected newline, expecting string\\n%s\\n   ^\\n' "$line" >&2 ;;
    *die*) exit 7 ;;
    *hang*) sleep 30 ;;
    *bad*) printf 'Error: Could not process rule: No such file or directory\\n%s\\n      ^^^^\\n' "$line" >&2 ;;
    *) printf '%s %s\\n' "$$" "$line" >> "$FAKE_NFT_LOG" ;;
  esac
done
`;

const dir = tempDir('wgcp-nft-session-');
const log = path.join(dir, 'applied');
const savedPath = process.env.PATH;

/** A session that sees the stand-in first on PATH (a session keeps the environment of its first start). */
async function session(timeoutMs?: number, batchesPerSession?: number): Promise<NftSession> {
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'bin', 'nft'), FAKE_NFT, { mode: 0o755 });
  process.env.PATH = `${path.join(dir, 'bin')}:${savedPath}`;
  process.env.FAKE_NFT_LOG = log;
  const s = new NftSession(timeoutMs, undefined, batchesPerSession);
  await s.apply('add element inet wgcp internet { 10.1.0.2 }\n');
  process.env.PATH = savedPath;
  delete process.env.FAKE_NFT_LOG;
  return s;
}

t.after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The message a batch is refused with ('' when it was applied). */
const refusal = (p: Promise<unknown>): Promise<string> => p.then(() => '', (err: Error) => err.message);

t('a batch goes as one line (one transaction) and silence means it was applied', async () => {
  const s = await session();
  await s.apply('delete element inet wgcp pairs { 10.1.0.2 . 10.1.0.3 }\nadd element inet wgcp pairs { 10.1.0.2 . 10.1.0.4 }\n');
  await s.close();
  assert.equal(fs.readFileSync(log, 'utf8').trim().split('\n').slice(-1).map((l) => l.replace(/^\d+ /, '')), ['delete element inet wgcp pairs { 10.1.0.2 . 10.1.0.3 }; add element inet wgcp pairs { 10.1.0.2 . 10.1.0.4 }']);
});

t('a refused batch throws nft\'s own message, without the caret lines', async () => {
  const s = await session();
  assert.is(await refusal(s.apply('add element inet wgcp bad { 1.2.3.4 }\n')),
    'nft failed: Error: Could not process rule: No such file or directory; add element inet wgcp bad { 1.2.3.4 }');
  await s.apply('add element inet wgcp internet { 10.1.0.9 }\n');
  await s.close();
});

t('a session that died says so, and the next batch starts a new one', async () => {
  const s = await session();
  assert.match(await refusal(s.apply('add element inet wgcp die { 1.2.3.4 }\n')), /nft -i exited \(exit code 7\)/);
  await s.apply('add element inet wgcp internet { 10.1.0.10 }\n');
  await s.close();
  assert.ok(fs.readFileSync(log, 'utf8').includes('10.1.0.10'));
});

t('a batch nft does not answer in time fails, and the next one works', async () => {
  const s = await session(500);
  assert.match(await refusal(s.apply('add element inet wgcp hang { 1.2.3.4 }\n')), /nft did not answer within 0.5 s/);
  await s.apply('add element inet wgcp internet { 10.1.0.11 }\n');
  await s.close();
  assert.ok(fs.readFileSync(log, 'utf8').includes('10.1.0.11'));
});

t('after its batches a session gives way to a fresh nft -i (nft -i slows down with every line it reads)', async () => {
  const s = await session(undefined, 3);
  for (const n of [20, 21, 22]) await s.apply(`add element inet wgcp internet { 10.1.0.${n} }\n`);
  await s.close();
  const pidOf = (n: number) => fs.readFileSync(log, 'utf8').split('\n').find((l) => l.endsWith(`{ 10.1.0.${n} }`))!.split(' ')[0];
  assert.is.not(pidOf(20), pidOf(21), 'the start-up probe, the first batch and 10.1.0.20 were the first session\'s three');
  assert.is(pidOf(21), pidOf(22));
});

t('an nft without a usable -i falls back to one nft -f a batch, and says so once', async () => {
  const bin = path.join(dir, 'bin-no-cli');
  fs.mkdirSync(bin, { recursive: true });
  const oneShotLog = path.join(dir, 'one-shot');
  fs.writeFileSync(path.join(bin, 'nft'), `#!/bin/sh\n[ "$1" = -i ] && { echo "Error: this build has no interactive CLI" >&2; exit 1; }\ncat >> '${oneShotLog}'\n`, { mode: 0o755 });
  process.env.PATH = `${bin}:${savedPath}`;
  const said: string[] = [];
  const s = new NftSession(30_000, (reason) => said.push(reason));
  try {
    await s.apply('add element inet wgcp internet { 10.1.0.2 }\n');
    await s.apply('delete element inet wgcp internet { 10.1.0.2 }\nadd element inet wgcp internet { 10.1.0.3 }\n');
  } finally {
    process.env.PATH = savedPath;
  }
  await s.close();
  assert.is(said.length, 1);
  assert.match(said[0], /no interactive CLI/);
  assert.is(fs.readFileSync(oneShotLog, 'utf8'), 'add element inet wgcp internet { 10.1.0.2 }\ndelete element inet wgcp internet { 10.1.0.2 }\nadd element inet wgcp internet { 10.1.0.3 }\n');
});

t('an empty batch touches nothing', async () => {
  const s = new NftSession();
  await s.apply('\n \n');
  await s.close();
});

t.run();
