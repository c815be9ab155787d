// A bandwidth limit as the API takes it: Mbit/s with decimals, or null for none.
import { badField, type Body } from './fields';

export const MIN_LIMIT_MBPS = 0.1;
export const MAX_LIMIT_MBPS = 10_000;

/** undefined when absent (left as it is), null for no limit, else a number within the range. */
export function readLimitMbps(body: Body, field: string): number | null | undefined {
  if (!Object.prototype.hasOwnProperty.call(body, field) || body[field] === undefined) return undefined;
  const v = body[field];
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw badField(field, 'must be a number of Mbit/s or null for no limit');
  if (v < MIN_LIMIT_MBPS || v > MAX_LIMIT_MBPS) throw badField(field, `must be between ${MIN_LIMIT_MBPS} and ${MAX_LIMIT_MBPS} Mbit/s, or null for no limit`);
  return v;
}
