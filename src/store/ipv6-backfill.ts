// A database from before IPv6 gets its IPv6 addresses once, at the first open after the
// upgrade: each server a unique local /64 of the router's Global ID, each peer the address
// of its IPv4 host number in that prefix (10.8.0.5 -> fd..::5), so its next .conf works.
import type { DB } from './db';
import { parseCidr, parseIpv4, networkOf } from '../net/ipv4';
import { formatIpv6, hostAt6, overlaps6, parseCidr6, ulaPrefix, type Cidr6 } from '../net/ipv6';

export const GLOBAL_ID_STATE = 'ulaGlobalId';
const BACKFILL_STATE = 'ipv6Backfill';

/** The router's 40-bit RFC 4193 Global ID, made once by the migration. */
export function ulaGlobalId(db: DB): bigint {
  const hex = db.prepare('SELECT value FROM job_state WHERE name = ?').pluck().get(GLOBAL_ID_STATE) as string;
  return BigInt(`0x${hex}`);
}

/** The first unique local /64 (subnet id from `start`) that no prefix in `taken` overlaps. */
export function freeUlaPrefix(globalId: bigint, taken: Cidr6[], start = 1): Cidr6 | null {
  for (let n = 0; n < 0x10000; n++) {
    const c = ulaPrefix(globalId, (start + n) & 0xffff);
    if ((start + n) & 0xffff && !taken.some((t) => overlaps6(t, c))) return c;
  }
  return null;
}

export function backfillIpv6(db: DB): void {
  const state = db.prepare('SELECT value FROM job_state WHERE name = ?').pluck();
  if (state.get(BACKFILL_STATE) !== '1') return;
  db.transaction(() => {
    const gid = ulaGlobalId(db);
    const servers = db.prepare('SELECT id, address, address6 FROM servers ORDER BY id').all() as { id: number; address: string; address6: string | null }[];
    const taken = servers.map((s) => (s.address6 ? parseCidr6(s.address6) : null)).filter((c): c is Cidr6 => c !== null);
    const setServer = db.prepare('UPDATE servers SET address6 = ? WHERE id = ?');
    const peersOf = db.prepare('SELECT id, ip FROM peers WHERE server_id = ? AND ip6 IS NULL');
    const setPeer = db.prepare('UPDATE peers SET ip6 = ? WHERE id = ?');
    for (const s of servers) {
      if (s.address6 !== null) continue;
      const prefix = freeUlaPrefix(gid, taken, s.id);
      if (!prefix) continue;
      taken.push(prefix);
      setServer.run(`${formatIpv6(hostAt6(prefix, 1n))}/64`, s.id);
      const net4 = networkOf(parseCidr(s.address)!);
      for (const p of peersOf.all(s.id) as { id: number; ip: string }[]) {
        const offset = BigInt((parseIpv4(p.ip)! - net4) >>> 0);
        setPeer.run(formatIpv6(hostAt6(prefix, offset)), p.id);
      }
    }
    db.prepare('UPDATE job_state SET value = ? WHERE name = ?').run('0', BACKFILL_STATE);
  }).immediate();
}

