// Where a server's next peer address comes from without reading every used one: a
// FreeRange per server and family, valid while the database's `addressesVersion` (a
// random token triggers renew on any change of a peer's address, by any writer) is the
// one this table's own writes left. Anything else (another connection, a rolled-back
// transaction, a server's cascade) changes the token and the ranges are built again.
import type { DB } from './db';
import type { ServerRecord } from './servers';
import { broadcastOf, formatIpv4, networkOf, parseCidr, parseIpv4 } from '../net/ipv4';
import { formatIpv6, lastOf6, networkOf6, parseCidr6, parseIpv6 } from '../net/ipv6';
import { FreeRange } from './free-range';

interface ServerRanges { address: string; address6: string | null; v4: FreeRange; v6: FreeRange | null }

/** Addresses a write gave back, read before it. */
export interface Freed { serverId: number; ip: string | null; ip6: string | null }

export class FreeAddresses {
  private readonly servers = new Map<number, ServerRanges>();
  private version: unknown = null;
  private readonly versionStmt;

  constructor(db: DB, private readonly ipTaken: (serverId: number, ip: string) => boolean, private readonly ip6Taken: (serverId: number, ip6: string) => boolean) {
    this.versionStmt = db.prepare(`SELECT value FROM job_state WHERE name = 'addressesVersion'`).pluck();
  }

  /** The lowest free host address of the server's subnet, its own address left out; null when full. */
  lowestIp(server: ServerRecord): string | null {
    const own = BigInt(parseCidr(server.address)!.ip);
    const n = this.ranges(server).v4.lowest((x) => x === own || this.ipTaken(server.id, formatIpv4(Number(x))));
    return n === null ? null : formatIpv4(Number(n));
  }

  /** The lowest free address of the server's IPv6 prefix after its network address, its own left out. */
  lowestIp6(server: ServerRecord): string | null {
    const range = this.ranges(server).v6;
    if (!range) return null;
    const own = parseCidr6(server.address6!)!.ip;
    const n = range.lowest((x) => x === own || this.ip6Taken(server.id, formatIpv6(x)));
    return n === null ? null : formatIpv6(n);
  }

  /**
   * Runs one of the peer table's own writes. When the ranges matched the database before
   * it, they still do after it, with the addresses it freed remembered; when they did not,
   * the next use builds them again.
   */
  ownWrite<T>(write: () => T, freed?: Freed): T {
    const valid = this.versionStmt.get() === this.version;
    const out = write();
    if (!valid) return out;
    this.version = this.versionStmt.get();
    const r = freed && this.servers.get(freed.serverId);
    if (r && freed.ip !== null) r.v4.freed(BigInt(parseIpv4(freed.ip)!));
    if (r && r.v6 && freed.ip6 !== null) r.v6.freed(parseIpv6(freed.ip6)!);
    return out;
  }

  /** Holes remembered over all servers (what these ranges hold besides a few numbers a server). */
  get holes(): number {
    let n = 0;
    for (const r of this.servers.values()) n += r.v4.holeCount + (r.v6?.holeCount ?? 0);
    return n;
  }

  private ranges(server: ServerRecord): ServerRanges {
    const version = this.versionStmt.get();
    if (version !== this.version) {
      this.servers.clear();
      this.version = version;
    }
    let r = this.servers.get(server.id);
    if (!r || r.address !== server.address || r.address6 !== server.address6) {
      r = { address: server.address, address6: server.address6, v4: range4(server.address), v6: server.address6 === null ? null : range6(server.address6) };
      this.servers.set(server.id, r);
    }
    return r;
  }
}

/** Host addresses of an IPv4 subnet: all of a /31 or /32, else without network and broadcast. */
function range4(address: string): FreeRange {
  const c = parseCidr(address)!;
  const edge = c.prefix >= 31 ? 0 : 1;
  return new FreeRange(BigInt(networkOf(c) + edge), BigInt(broadcastOf(c) - edge));
}

/** An IPv6 prefix after its network (subnet-router anycast) address. */
function range6(address6: string): FreeRange {
  const c = parseCidr6(address6)!;
  return new FreeRange(networkOf6(c) + 1n, lastOf6(c));
}
