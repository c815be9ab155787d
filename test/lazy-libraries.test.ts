// Each test runs a daemon in a process of its own (test/helpers/lazy-probe.ts) and looks at
// what that process loaded before and after one use: no test depends on another's order or ids.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProbeResult } from './helpers/lazy-probe';

const t = suite('libraries a daemon may never need are loaded at their first use, not at start');
const PROBE = path.join(__dirname, 'helpers/lazy-probe.js');

async function probe(use: string): Promise<ProbeResult> {
  const { stdout } = await promisify(execFile)(process.execPath, [PROBE, use], { timeout: 60_000 });
  return JSON.parse(stdout) as ProbeResult;
}

const none = { qrcode: false, nodemailer: false, ws: false, 'prom-client': false, '@simplewebauthn/server': false };

t('a started daemon serving servers and peers has loaded none of qrcode, nodemailer, ws, prom-client, @simplewebauthn/server', async () => {
  const r = await probe('serve');
  assert.is(r.status, 200);
  assert.equal(r.after, none);
});

t('the first QR code loads qrcode, and only it', async () => {
  const r = await probe('qrcode');
  assert.equal(r.before, none);
  assert.is(r.status, 200);
  assert.equal(r.after, { ...none, qrcode: true });
});

t('the first mail loads nodemailer, even one that cannot be delivered, and only it', async () => {
  const r = await probe('mail');
  assert.equal(r.before, none);
  assert.is(r.status, 502);
  assert.equal(r.after, { ...none, nodemailer: true });
});

t('the first event stream client loads ws, and only it', async () => {
  const r = await probe('events');
  assert.equal(r.before, none);
  assert.is(r.status, 101);
  assert.equal(r.after, { ...none, ws: true });
});

t('the first passkey ceremony loads @simplewebauthn/server, and only it', async () => {
  const r = await probe('passkey');
  assert.equal(r.before, none);
  assert.is(r.status, 200);
  assert.equal(r.after, { ...none, '@simplewebauthn/server': true });
});

t.run();
