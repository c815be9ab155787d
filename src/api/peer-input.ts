// A peer body as the API takes it: each field by its rule in the description
// (resources/peer.ts). The rules that need the server and the other peers are the
// operation's (ops/peer-rules.ts).
import type { PeerInput } from '../ops/peers';
import { parseInput } from '../resources/describe';
import { PEER } from '../resources/peer';
import type { Body } from './fields';

export { MAX_LIMIT_GB } from '../resources/peer';

/** `now`: the daemon's clock, against which an expiry must lie ahead. */
export function parsePeerInput(body: Body, now: Date): PeerInput {
  return parseInput(PEER, body, { now }) as PeerInput;
}
