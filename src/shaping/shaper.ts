// Applies per-peer bandwidth limits (src/shaping/render.ts says how they work) and keeps
// what each server interface holds: which peers are shaped, with which class. A server's
// shaping is made from nothing whenever its interface is brought up (start-up, a new
// wireguard-go, a retried server); after that each peer's change is a delta of a few lines.
// The qdiscs, the IFB and the chains exist only once a peer of the server has a limit.
import { run } from '../exec/command';
import { expectedClasses, needsInstall, repairTcLines, shapingDrift, type ShapingDrift } from './compare';
import { elementDrift, expectedElements, parseShapingTable, type ElementDrift } from './compare-elements';
import type { Logger } from '../log';
import type { KernelPeer } from '../store/peers';
import { deleteOwnLink, linkInfo, markOwnLink } from '../wg/link-owner';
import { MinorPool } from './minors';
import { installNftLines, installTcLines, namesOf, peerDelta, resetNftLines, resetTcLines, SHAPING_TABLE, slotDeleteLines, slotLines, type ShapedPeer, type ShapingNames } from './render';
import { TcSession } from './tc-session';

export interface ShapingStep { what: string; run(): Promise<void>; undo(): Promise<void> }

interface ServerShaping {
  names: ShapingNames;
  base: boolean;
  peers: Map<number, ShapedPeer>;
  /** Minors of slots that exist and no peer holds. */
  spares: number[];
  minors: MinorPool;
  tidy: NodeJS.Timeout | null;
  /** Settles once install() has made what it makes. */
  ready: Promise<void>;
}

/** Spare slots a server keeps once it shapes at all; slots made or deleted a tidy; how long after a change it comes. */
export const SPARES = 2;
const TIDY_SLOTS = 8;
const TIDY_DELAY_MS = 500;
/** What making a server's classes may take: HTB's walk makes it grow with the square of their number. */
const INSTALL_TIMEOUT_MS = (peers: number): number => 8_000 + Math.ceil(peers * peers * 0.001);

const NO_ELEMENT_DRIFT: ElementDrift = { rebuild: false, missing: 0, wrongClass: 0, extra: 0, lines: [] };

export const isLimited = (p: Pick<KernelPeer, 'downloadLimitMbps' | 'uploadLimitMbps'>): boolean =>
  (p.downloadLimitMbps ?? null) !== null || (p.uploadLimitMbps ?? null) !== null;

const shapedOf = (p: KernelPeer, minor: number): ShapedPeer =>
  ({ ip: p.ip, ip6: p.ip6, minor, down: p.downloadLimitMbps ?? null, up: p.uploadLimitMbps ?? null });

export class Shaper {
  private readonly servers = new Map<string, ServerShaping>();
  readonly tc = new TcSession();
  private closed = false;

  /** `serialize`: runs kernel work in the change runner's order (the spare slots' upkeep). */
  constructor(private readonly log: Logger, private readonly nft: (batch: string) => Promise<void>,
    private readonly serialize: (what: string, work: () => Promise<void>) => Promise<void>) {}

  /**
   * Makes an interface's shaping from nothing: whatever an earlier run or device left is
   * removed first. Resolves when it is made; a peer's step or a check meanwhile waits for it
   * (with 10,000 limited peers this takes tens of seconds: a start-up need not wait).
   */
  install(ifname: string, peers: Iterable<KernelPeer>): Promise<void> {
    this.forget(ifname);
    const s: ServerShaping = { names: namesOf(ifname), base: false, peers: new Map(), spares: [], minors: new MinorPool(), tidy: null, ready: Promise.resolve() };
    for (const p of peers) if (isLimited(p)) s.peers.set(p.id, shapedOf(p, s.minors.take()));
    this.servers.set(ifname, s);
    s.ready = (async () => {
      // A router without tc, IFB or netdev chains still runs the server, unshaped; a limit set later says why it fails.
      try {
        await this.reset(s.names);
        if (s.peers.size > 0) await this.makeBase(s);
      } catch (err) {
        if (s.peers.size === 0 || this.closed) return;
        this.log.error('bandwidth limits could not be set up: the interface runs without them', { interface: ifname, error: err instanceof Error ? err.message : String(err) });
      }
    })();
    return s.ready;
  }

  /** Forgets an interface that is gone, with its IFB and chains. */
  async remove(ifname: string): Promise<void> {
    const known = this.servers.get(ifname);
    this.forget(ifname);
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
    let will: ShapedPeer | null = null;
    let slot: 'spare' | 'new' | null = null;
    const set = (to: ShapedPeer | null) => { if (to) s.peers.set(id, to); else s.peers.delete(id); };
    return {
      what: `peer ${id} bandwidth limits on ${ifname}`,
      run: async () => {
        // The slot is chosen when the step runs, so that a change refused before it takes none.
        await s.ready;
        if (limited && !was) slot = s.spares.length > 0 && s.base ? 'spare' : 'new';
        const minor = was?.minor ?? (slot === 'spare' ? s.spares.pop()! : s.minors.take());
        will = limited ? shapedOf(after, minor) : null;
        try {
          if (will && !s.base) {
            // An earlier attempt may have left part of it.
            await this.reset(s.names);
            await this.makeBase(s);
          }
          await this.delta(s.names, was, will);
        } catch (err) {
          // Back among the spares: `class replace` makes the slot's classes if they are not there.
          if (slot) s.spares.push(minor);
          throw err;
        }
        set(will);
        // The slot it leaves is a spare now: a later limit takes it without a walk of all classes.
        if (was && !will) s.spares.push(was.minor);
        this.tidySoon(s);
      },
      undo: async () => {
        await this.delta(s.names, will, was);
        set(was);
        if (slot && will) s.spares.push(will.minor);
        const back = was && !will ? s.spares.lastIndexOf(was.minor) : -1;
        if (back >= 0) s.spares.splice(back, 1);
      },
    };
  }

  /**
   * Between changes, the spare slots are brought back to SPARES: made (each a walk of all
   * classes in the kernel) or deleted, a few at a time, in the change runner's order.
   */
  private tidySoon(s: ServerShaping): void {
    if (s.tidy || this.closed) return;
    s.tidy = setTimeout(() => {
      s.tidy = null;
      void this.serialize(`spare bandwidth classes of ${s.names.ifname}`, async () => {
        await s.ready;
        if (this.servers.get(s.names.ifname) !== s || !s.base) return;
        const lines: string[] = [];
        const made: number[] = [];
        const dropped: number[] = [];
        for (let i = 0; i < TIDY_SLOTS && s.spares.length + made.length < SPARES; i++) {
          const m = s.minors.take();
          made.push(m);
          lines.push(...slotLines(s.names, m, null, null));
        }
        for (let i = 0; i < TIDY_SLOTS && s.spares.length - dropped.length > SPARES; i++) {
          const m = s.spares[dropped.length];
          dropped.push(m);
          lines.push(...slotDeleteLines(s.names, m));
        }
        if (lines.length === 0) return;
        try {
          await this.tc.run(lines);
        } finally {
          // Whatever tc did, the slots are as their lines say or will be read as drift.
          s.spares.push(...made);
          s.spares.splice(0, dropped.length);
          for (const m of dropped) s.minors.give(m);
        }
        if (s.spares.length !== SPARES) this.tidySoon(s);
      });
    }, TIDY_DELAY_MS);
    s.tidy.unref();
  }

  /** What the shaper holds for an interface (the reconciler compares it with `tc class show`). */
  held(ifname: string): { names: ShapingNames; base: boolean; peers: ReadonlyMap<number, ShapedPeer>; spares: readonly number[] } | null {
    return this.servers.get(ifname) ?? null;
  }

  /** How an interface's classes and map elements differ from what the shaper holds (null: it holds nothing there); read-only. */
  async drift(ifname: string): Promise<ShapingDrift | null> {
    const s = this.servers.get(ifname);
    if (!s) return null;
    await s.ready;
    const show = (dev: string) => (linkInfo(dev) ? run('tc', ['class', 'show', 'dev', dev]) : Promise.resolve(''));
    // No table at all reads as empty: every map and chain of a shaping server is then missing.
    const table = s.base ? run('nft', ['-j', 'list', 'table', SHAPING_TABLE]).catch(() => '') : Promise.resolve('');
    const [tunnel, ifb, listed] = await Promise.all([show(s.names.ifname), show(s.names.ifb), table]);
    const classes = shapingDrift(expectedClasses(s.names, s.peers.values(), s.spares), { [s.names.ifname]: tunnel, [s.names.ifb]: ifb });
    const elements = s.base ? elementDrift(s.names, expectedElements(s.names, s.peers.values()), parseShapingTable(listed)) : NO_ELEMENT_DRIFT;
    return { ...classes, elements };
  }

  /**
   * Puts a drift right: the drifted classes alone (O(k) tc lines through the kept session),
   * then the drifted map elements (one nft batch); the server's shaping whole where a device
   * lost every class (its root qdisc with them) or a map or chain is gone.
   */
  async repair(ifname: string, peers: Iterable<KernelPeer>, drift: ShapingDrift): Promise<void> {
    const s = this.servers.get(ifname);
    if (!s) return;
    await s.ready;
    if (drift.elements.rebuild || needsInstall(expectedClasses(s.names, s.peers.values(), s.spares), drift)) return this.install(ifname, peers);
    await this.tc.run(repairTcLines(drift));
    if (drift.elements.lines.length > 0) await this.nft(drift.elements.lines.join('\n'));
  }

  /** Stops at once: a making of classes under way is cut short (the next start makes them all again). */
  close(): Promise<void> {
    this.closed = true;
    for (const ifname of [...this.servers.keys()]) this.forget(ifname);
    return this.tc.close(true);
  }

  private forget(ifname: string): void {
    const s = this.servers.get(ifname);
    if (s?.tidy) clearTimeout(s.tidy);
    this.servers.delete(ifname);
  }

  private async delta(n: ShapingNames, was: ShapedPeer | null, will: ShapedPeer | null): Promise<void> {
    const d = peerDelta(n, was, will);
    await this.tc.run(d.tc);
    if (d.nft.length) await this.nft(d.nft.join('\n'));
  }

  /** The IFB, both HTB qdiscs, the maps and chains, with the peers the server holds now. */
  private async makeBase(s: ServerShaping): Promise<void> {
    const { ifb } = s.names;
    await run('ip', ['link', 'add', 'name', ifb, 'type', 'ifb']);
    await markOwnLink(ifb);
    await run('ip', ['link', 'set', 'dev', ifb, 'up']);
    const spares = Array.from({ length: SPARES }, () => s.minors.take());
    // Every class made is a walk of those before it in the kernel: 10,000 take tens of seconds.
    await this.tc.run(installTcLines(s.names, s.peers.values(), spares), true, INSTALL_TIMEOUT_MS(s.peers.size));
    s.spares = spares;
    await this.nft(installNftLines(s.names, s.peers.values()).join('\n'));
    s.base = true;
    this.log.info('bandwidth limits set up', { interface: s.names.ifname, limitedPeers: s.peers.size });
  }

  /** Removes what any run made for this interface; what is not there is fine. */
  private async reset(n: ShapingNames): Promise<void> {
    await this.nft(resetNftLines(n).join('\n'));
    await deleteOwnLink(n.ifb);
    // Only the root qdisc shaping makes (HTB 1:) goes: one the operator set on the tunnel stays,
    // and then a limit fails with tc's word rather than taking it over.
    if (!linkInfo(n.ifname)) return;
    const shown = await run('tc', ['qdisc', 'show', 'dev', n.ifname]).catch(() => '');
    if (/^qdisc htb 1: root/m.test(shown)) await this.tc.run(resetTcLines(n), true);
  }
}
