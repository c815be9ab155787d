// forwards_hash (DESIGN.md section 4): lowercase hex SHA-256 of the canonical JSON array
// of a device's forwards, sorted by protocol then listenPort, keys in this fixed order.
import crypto from 'node:crypto';

export interface ForwardShape { protocol: string; listenPort: number; targetPort: number }

export function canonicalForwards(forwards: readonly ForwardShape[]): string {
  const sorted = [...forwards].sort((a, b) =>
    a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : a.listenPort - b.listenPort);
  return JSON.stringify(sorted.map((f) => ({ protocol: f.protocol, listenPort: f.listenPort, targetPort: f.targetPort })));
}

const EMPTY_HASH = crypto.createHash('sha256').update('[]', 'utf8').digest('hex');

/** From the JSON array text the store reads (any order, any key order): re-made canonical before hashing. */
export function forwardsHashOfJson(json: string): string {
  return json === '[]' ? EMPTY_HASH : forwardsHash(JSON.parse(json) as ForwardShape[]);
}

export function forwardsHash(forwards: readonly ForwardShape[]): string {
  return crypto.createHash('sha256').update(canonicalForwards(forwards), 'utf8').digest('hex');
}
