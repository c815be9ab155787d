// Key generation must never hang the daemon: Node 20's generateKeyPairSync + JWK export
// deadlocks when a collection runs mid-export (the old code hung here within 1,500 keys).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const t = suite('wg keys under garbage collection');
const KEYS = path.join(__dirname, '../src/wg/keys.js');

t('2,000 key pairs in a row with a tiny young heap (a collection every few keys) finish', async () => {
  const script = `const { generateKeyPair } = require(${JSON.stringify(KEYS)}); let n = 0; for (let i = 0; i < 2000; i++) n += generateKeyPair().publicKey.length; process.stdout.write(String(n));`;
  const out = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--max-semi-space-size=1', '-e', script], { timeout: 60_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
  assert.is(out, String(2000 * 44));
});

t.run();
