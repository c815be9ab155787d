// Run inside a namespace by test/shaping-drift.test.ts: the real Shaper on a veth standing in
// for a tunnel, its drift read from the kernel before and after a class is deleted by hand,
// and after a repair. Prints one JSON line of what it saw.
import { execFileSync } from 'node:child_process';
import { NftSession } from '../../src/nft/session';
import { silentLogger } from '../../src/log';
import { hasDrift, repairTcLines } from '../../src/shaping/compare';
import { Shaper } from '../../src/shaping/shaper';
import type { KernelPeer } from '../../src/store/peers';

const peer = (id: number, down: number | null, up: number | null): KernelPeer => ({
  id, ip: `10.77.0.${id + 1}`, ip6: `fd77::${id + 1}`, publicKey: '', presharedKey: '', allowAccess: [], allowInternet: false, enabled: true,
  downloadLimitMbps: down, uploadLimitMbps: up,
});

async function main(): Promise<void> {
  execFileSync('ip', ['link', 'add', 'tun0', 'type', 'veth', 'peer', 'name', 'tun0p']);
  const nft = new NftSession();
  const shaper = new Shaper(silentLogger, (b) => nft.apply(b), (_what, work) => work());
  const seen: Record<string, unknown> = {};
  try {
    await shaper.install('tun0', [peer(1, 20, 10), peer(2, 5, null), peer(3, null, null)]);
    const first = (await shaper.drift('tun0'))!;
    seen.afterInstall = hasDrift(first);
    const slot = shaper.held('tun0')!.peers.get(1)!.minor.toString(16);
    execFileSync('tc', ['class', 'del', 'dev', 'tun0', 'classid', `1:${slot}`]);
    const broken = (await shaper.drift('tun0'))!;
    seen.missing = broken.missing.map((m) => `${m.dev === 'tun0' ? 'tunnel' : 'ifb'} ${m.classid} ${m.rateBit}`);
    execFileSync('tc', ['class', 'change', 'dev', shaper.held('tun0')!.names.ifb, 'classid', `1:${slot}`, 'htb', 'rate', '3mbit', 'ceil', '3mbit']);
    seen.wrongRate = (await shaper.drift('tun0'))!.wrongRate.map((w) => `${w.rateBit} ${w.shownBit}`);
    const peers = [peer(1, 20, 10), peer(2, 5, null), peer(3, null, null)];
    // Both drifts at once (the tunnel's class gone, the IFB's at 3 Mbit/s), repaired class by class.
    const two = (await shaper.drift('tun0'))!;
    seen.repairLines = repairTcLines(two).length;
    await shaper.repair('tun0', peers, two);
    seen.afterRepair = hasDrift((await shaper.drift('tun0'))!);
    // The tunnel's root qdisc deleted takes every class with it: the shaping is made again whole.
    execFileSync('tc', ['qdisc', 'del', 'dev', 'tun0', 'root']);
    const gone = (await shaper.drift('tun0'))!;
    seen.rootGone = gone.missing.length;
    await shaper.repair('tun0', peers, gone);
    seen.afterRootRepair = hasDrift((await shaper.drift('tun0'))!);
    // A map element deleted by hand leaves every class in place and the peer unshaped.
    const { prefix } = shaper.held('tun0')!.names;
    execFileSync('nft', ['delete', 'element', 'netdev', 'wgcp', `${prefix}_d6`, '{ fd77::3 }']);
    const element = (await shaper.drift('tun0'))!;
    seen.elementGone = { classes: element.missing.length + element.wrongRate.length + element.extra.length, ...element.elements };
    await shaper.repair('tun0', peers, element);
    seen.afterElementRepair = hasDrift((await shaper.drift('tun0'))!);
    seen.elementBack = execFileSync('nft', ['list', 'map', 'netdev', 'wgcp', `${prefix}_d6`], { encoding: 'utf8' }).includes('fd77::3 : ');
    // A flushed chain loses its rules: nothing is classified until the shaping is made again whole.
    execFileSync('nft', ['flush', 'chain', 'netdev', 'wgcp', `${prefix}_in`]);
    const flushed = (await shaper.drift('tun0'))!;
    seen.chainFlushed = flushed.elements.rebuild;
    await shaper.repair('tun0', peers, flushed);
    seen.afterChainRepair = hasDrift((await shaper.drift('tun0'))!);
  } finally {
    await shaper.close();
    await nft.close();
  }
  process.stdout.write(`${JSON.stringify(seen)}\n`);
}

main().catch((err) => { process.stderr.write(`${err instanceof Error ? err.stack : err}\n`); process.exit(1); });
