// Applies per-peer bandwidth limits (src/shaping/render.ts says how they work) and keeps
// what each server interface holds: which peers are shaped, with which class. A server's
// shaping is made from nothing whenever its interface is brought up (start-up, a new
// wireguard-go, a retried server); after that each peer's change is a delta of a few lines.
// The qdiscs, the IFB and the chains exist only once a peer of the server has a limit.
import { run, runAsync } from '../kernel/command';
import { expectedClasses, shapingDrift, type ShapingDrift } from './compare';
import type { Logger } from '../log';
import type { KernelPeer } from '../store/peers';
import { deleteOwnLink, linkInfo, markOwnLink } from '../wg/link-owner';
import { MinorPool } from './minors';
import { installNftLines, installTcLines, namesOf, peerDelta, resetNftLines, resetTcLines, type ShapedPeer, type ShapingNames } from './render';
import { TcSession } from './tc-session';

export interface ShapingStep { what: string; run(): Promise<void>; undo(): Promise<void> }

interface ServerShaping { names: ShapingNames; base: boolean; peers: Map<number, ShapedPeer>; minors: MinorPool }

export const isLimited = (p: Pick<KernelPeer, 'downloadLimitMbps' | 'uploadLimitMbps'>): boolean =>
  (p.downloadLimitMbps ?? null) !== null || (p.uploadLimitMbps ?? null) !== null;

const shapedOf = (p: KernelPeer, minor: number): ShapedPeer =>
  ({ ip: p.ip, ip6: p.ip6, minor, down: p.downloadLimitMbps ?? null, up: p.uploadLimitMbps ?? null });

export class Shaper {
  private readonly servers = new Map<string, ServerShaping>();
  readonly tc = new TcSession();

  constructor(private readonly log: Logger, private readonly nft: (batch: string) => Promise<void>) {}

  /** Makes an interface's shaping from nothing: whatever an earlier run or device left is removed first. */
  async install(ifname: string, peers: Iterable<KernelPeer>): Promise<void> {
    const s: ServerShaping = { names: namesOf(ifname), base: false, peers: new Map(), minors: new MinorPool() };
    for (const p of peers) if (isLimited(p)) s.peers.set(p.id, shapedOf(p, s.minors.take()));
    this.servers.set(ifname, s);
    // A router without tc, IFB or netdev chains still runs the server, unshaped; a limit set later says why it fails.
    try {
      await this.reset(s.names);
      if (s.peers.size > 0) await this.makeBase(s);
    } catch (err) {
      if (s.peers.size === 0) return;
      this.log.error('bandwidth limits could not be set up: the interface runs without them', { interface: ifname, error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Forgets an interface that is gone, with its IFB and chains. */
  async remove(ifname: string): Promise<void> {
    const known = this.servers.get(ifname);
    this.servers.delete(ifname);
    if (!known?.base && !linkInfo(namesOf(ifname).ifb)) return;
    try {
      await this.reset(namesOf(ifname));
    } catch (err) {
      // The interface is gone; what is left of its shaping names a device that no longer exists.
      this.log.warn('the shaping of a removed interface could not be cleared', { interface: ifname, error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** The step that takes one peer from how it is shaped to `after` (null: deleted); null when nothing changes. */
  peerStep(ifname: string, id: number, after: KernelPeer | null): ShapingStep | null {
    const s = this.servers.get(ifname);
    const was = s?.peers.get(id) ?? null;
    const limited = after !== null && isLimited(after);
    if (!s || (was === null && !limited)) return null;
    const will = limited ? shapedOf(after, was?.minor ?? s.minors.take()) : null;
    const taken = was === null && will !== null ? will.minor : null;
    let applied = false;
    const set = (to: ShapedPeer | null) => { if (to) s.peers.set(id, to); else s.peers.delete(id); };
    return {
      what: `peer ${id} bandwidth limits on ${ifname}`,
      run: async () => {
        try {
          if (will && !s.base) {
            // An earlier attempt may have left part of it.
            await this.reset(s.names);
            await this.makeBase(s);
          }
          await this.delta(s.names, was, will);
        } catch (err) {
          if (taken !== null) s.minors.give(taken);
          throw err;
        }
        applied = true;
        set(will);
        if (was && !will) s.minors.give(was.minor);
      },
      undo: async () => {
        if (!applied) return;
        await this.delta(s.names, will, was);
        set(was);
        if (taken !== null) s.minors.give(taken);
        if (was && !will) s.minors.take(was.minor);
      },
    };
  }

  /** What the shaper holds for an interface (the reconciler compares it with `tc class show`). */
  held(ifname: string): { names: ShapingNames; base: boolean; peers: ReadonlyMap<number, ShapedPeer> } | null {
    return this.servers.get(ifname) ?? null;
  }

  /** How an interface's classes differ from what the shaper holds (null: it holds nothing there); read-only. */
  async drift(ifname: string): Promise<ShapingDrift | null> {
    const s = this.servers.get(ifname);
    if (!s) return null;
    const show = (dev: string) => (linkInfo(dev) ? runAsync('tc', ['class', 'show', 'dev', dev]) : Promise.resolve(''));
    const [tunnel, ifb] = await Promise.all([show(s.names.ifname), show(s.names.ifb)]);
    return shapingDrift(expectedClasses(s.names, s.peers.values()), { [s.names.ifname]: tunnel, [s.names.ifb]: ifb });
  }

  close(): Promise<void> { return this.tc.close(); }

  private async delta(n: ShapingNames, was: ShapedPeer | null, will: ShapedPeer | null): Promise<void> {
    const d = peerDelta(n, was, will);
    await this.tc.run(d.tcFirst);
    if (d.nft.length) await this.nft(d.nft.join('\n'));
    await this.tc.run(d.tcLast);
  }

  /** The IFB, both HTB qdiscs, the maps and chains, with the peers the server holds now. */
  private async makeBase(s: ServerShaping): Promise<void> {
    const { ifb } = s.names;
    await run('ip', ['link', 'add', 'name', ifb, 'type', 'ifb']);
    await markOwnLink(ifb);
    await run('ip', ['link', 'set', 'dev', ifb, 'up']);
    await this.tc.run(installTcLines(s.names, s.peers.values()), true);
    await this.nft(installNftLines(s.names, s.peers.values()).join('\n'));
    s.base = true;
    this.log.info('bandwidth limits set up', { interface: s.names.ifname, limitedPeers: s.peers.size });
  }

  /** Removes what any run made for this interface; what is not there is fine. */
  private async reset(n: ShapingNames): Promise<void> {
    await this.nft(resetNftLines(n).join('\n'));
    await deleteOwnLink(n.ifb);
    // A fresh interface has no root qdisc to delete: that failure is expected.
    if (linkInfo(n.ifname)) await this.tc.run(resetTcLines(n), true).catch(() => {});
  }
}
