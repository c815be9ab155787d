// The query of a peer list: `limit`/`offset` pages, `q` searches (name, e-mail, address,
// public key), `sort` names a field and `order` is asc or desc. Without any of them the
// list is whole, by id, as the contract has it.
import { fieldError } from '../error-registry';
import { PEER_SORTS, type PeerQuery, type PeerSort } from '../store/peers';

const KEYS = ['q', 'sort', 'order', 'limit', 'offset'];

export function readPeerQuery(query: URLSearchParams): PeerQuery | undefined {
  if (!KEYS.some((k) => query.has(k))) return undefined;
  const num = (name: string, fallback: number, max: number): number => {
    const v = query.get(name);
    if (v === null) return fallback;
    if (!/^\d{1,9}$/.test(v) || Number(v) > max) throw fieldError(name, `must be a whole number from 0 to ${max}`);
    return Number(v);
  };
  const q = (query.get('q') ?? '').trim();
  if (q.length > 200) throw fieldError('q', 'must be at most 200 characters');
  const sort = query.get('sort') ?? 'id';
  if (!Object.hasOwn(PEER_SORTS, sort)) throw fieldError('sort', `must be one of ${Object.keys(PEER_SORTS).join(', ')}`);
  const order = query.get('order') ?? 'asc';
  if (order !== 'asc' && order !== 'desc') throw fieldError('order', 'must be asc or desc');
  return { q, sort: sort as PeerSort, order, limit: num('limit', 1000, 10_000), offset: num('offset', 0, 1e9) };
}
