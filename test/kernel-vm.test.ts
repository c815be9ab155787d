// The real-kernel tier: wgcpd on Debian's own kernel, in a throw-away QEMU guest that sees
// this checkout (test/vm/boot.ts), with the kernel's WireGuard module rather than
// wireguard-go, and a kernel from before per-interface IPv6 force_forwarding (6.17), as
// routers run. One boot a kernel: the checks of test/vm/real-kernel.ts run inside it in
// order, and each is reported here as a test. Debian 13's 6.12 and Debian 12's 6.1.
import * as assert from 'uvu/assert';
import { skip, suiteNeeding } from './helpers/root';
import { bootAndRun, type BootResult } from './vm/boot';
import { RELEASES, type Release } from './vm/kernel-cache';
import { CHECKS, type VmResults } from './vm/real-kernel';
import fs from 'node:fs';
import path from 'node:path';

const repo = path.join(__dirname, '..', '..');

// WGCP_VM_RELEASES=trixie boots one kernel only (each boot is 3.5-4.5 minutes under TCG).
const releases = (process.env.WGCP_VM_RELEASES ?? 'trixie,bookworm').split(',').filter((r): r is Release => r in RELEASES);

for (const release of releases) {
  const name = `kernel VM: wgcpd on ${RELEASES[release]}'s own kernel`;
  const t = suiteNeeding(name, ['qemu-system-x86_64', 'apt-get', 'dpkg-deb'], { root: true });
  let boot: BootResult | null = null;
  let results: VmResults | null = null;

  t.before(async () => {
    try {
      boot = await bootAndRun({ release, command: [process.execPath, path.join(repo, 'dist/test/vm/real-kernel.js'), '/run/wgcp-vm/results.json'], cwd: repo, timeoutMs: 15 * 60_000 });
    } catch (err) {
      // Fetching the kernel needs Debian's archive: without it the tier cannot run here.
      skip(name, `the kernel could not be prepared (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
      return;
    }
    try { results = JSON.parse(fs.readFileSync(path.join(boot.runDir, 'results.json'), 'utf8')); } catch { /* said below */ }
    console.log(`  ${boot.kernel.package}, ${boot.accelNote}: command started at ${((boot.commandStartMs ?? NaN) / 1000).toFixed(1)} s, guest off at ${(boot.totalMs / 1000).toFixed(1)} s; wgcpd ready in ${results?.daemonStartMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ') ?? '?'}`);
  });
  t.after(() => boot?.cleanup());

  t('the guest runs the kernel it was given and the checks report back', () => {
    if (!boot) return;
    assert.ok(results, `no results came back (exit ${boot.code}${boot.timedOut ? ', timed out' : ''}):\n${boot.stderr.slice(-3000)}\n--- console ---\n${boot.console.slice(-3000)}`);
    assert.is(results!.kernel, boot.kernel.version);
  });
  for (const [check] of CHECKS) {
    t(check, () => {
      // A guest that reported nothing fails every check: none was seen to hold.
      assert.ok(boot && results, 'the guest reported nothing (see the first test)');
      const r = results!.checks.find((c) => c.name === check);
      assert.ok(r, 'not reported');
      assert.ok(r!.ok, `${r!.error}\n--- in-VM stderr ---\n${boot.stderr.slice(-2000)}`);
    });
  }
  t.run();
}
