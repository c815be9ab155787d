// Reading typed fields out of a request body: the input rules of the resource descriptions
// (and of the API's other bodies, through api/fields.ts). Every refusal is a 400 that names
// the field.
import { fieldError } from '../error-registry';
import { nameProblem } from '../ops/name-rule';
import { parseSchedule, ScheduleProblem, type Schedule } from '../schedule/rules';
import type { Body } from './describe';

const present = (body: Body, field: string): boolean => body[field] !== undefined && body[field] !== null;

export function readString(body: Body, field: string, opts: { max: number; min?: number; pattern?: RegExp; describe?: string }): string | undefined {
  if (!present(body, field)) return undefined;
  const v = body[field];
  if (typeof v !== 'string') throw fieldError(field, 'must be a string');
  if (v.length > opts.max) throw fieldError(field, `must be at most ${opts.max} characters`);
  if (v.length < (opts.min ?? 0)) throw fieldError(field, opts.min === 1 ? 'must not be empty' : `must be at least ${opts.min} characters`);
  if (opts.pattern && !opts.pattern.test(v)) throw fieldError(field, `must be ${opts.describe ?? `like ${opts.pattern}`}`);
  return v;
}

/** A name people give a thing: a string as readString takes it that also keeps the name rule (ops/name-rule.ts). */
export function readName(body: Body, field: string, opts: { max: number; min?: number }): string | undefined {
  const v = readString(body, field, opts);
  const problem = v === undefined ? null : nameProblem(v);
  if (problem) throw fieldError(field, problem);
  return v;
}

export function readBool(body: Body, field: string): boolean | undefined {
  if (!present(body, field)) return undefined;
  if (typeof body[field] !== 'boolean') throw fieldError(field, 'must be true or false');
  return body[field] as boolean;
}

export function readInt(body: Body, field: string, min: number, max: number): number | undefined {
  if (!present(body, field)) return undefined;
  const v = body[field];
  if (typeof v !== 'number' || !Number.isInteger(v)) throw fieldError(field, 'must be a whole number');
  if (v < min || v > max) throw fieldError(field, `must be between ${min} and ${max}`);
  return v;
}

export function readIntArray(body: Body, field: string, min: number, max: number, maxItems: number): number[] | undefined {
  if (!present(body, field)) return undefined;
  const v = body[field];
  if (!Array.isArray(v)) throw fieldError(field, 'must be an array of whole numbers');
  if (v.length > maxItems) throw fieldError(field, `must have at most ${maxItems} elements`);
  for (const n of v) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
      throw fieldError(field, `must hold whole numbers between ${min} and ${max}`);
    }
  }
  return [...new Set(v as number[])].sort((a, b) => a - b);
}

export function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw fieldError(field, 'is required');
  return value;
}

export function oneOf<T extends string>(body: Body, field: string, allowed: readonly T[]): T | undefined {
  if (!present(body, field)) return undefined;
  const v = body[field];
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw fieldError(field, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`);
  }
  return v as T;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** A timestamp field where null or "" mean "never". Returned normalised to UTC with milliseconds. */
export function readTimestamp(body: Body, field: string): string | null | undefined {
  if (!(field in body) || body[field] === undefined) return undefined;
  const v = body[field];
  if (v === null || v === '') return null;
  if (typeof v !== 'string') throw fieldError(field, 'must be an RFC 3339 timestamp, null or ""');
  const m = RFC3339.exec(v);
  const ms = Date.parse(v);
  if (!m || Number.isNaN(ms) || Number(m[2]) > 12 || Number(m[3]) > 31 || Number(m[4]) > 23) {
    throw fieldError(field, 'must be an RFC 3339 timestamp such as 2026-12-31T23:59:59Z, null or ""');
  }
  return new Date(ms).toISOString();
}

export const MIN_LIMIT_MBPS = 0.1;
export const MAX_LIMIT_MBPS = 10_000;

/** A bandwidth limit in Mbit/s with decimals: undefined when absent (left as it is), null for no limit. */
export function readLimitMbps(body: Body, field: string): number | null | undefined {
  if (!Object.prototype.hasOwnProperty.call(body, field) || body[field] === undefined) return undefined;
  const v = body[field];
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw fieldError(field, 'must be a number of Mbit/s or null for no limit');
  if (v < MIN_LIMIT_MBPS || v > MAX_LIMIT_MBPS) throw fieldError(field, `must be between ${MIN_LIMIT_MBPS} and ${MAX_LIMIT_MBPS} Mbit/s, or null for no limit`);
  return v;
}

/** An access schedule: absent (unchanged), null (none) or a schedule; the 400 names the field inside it (`schedule.windows[0].from`). */
export function readSchedule(body: Body, field = 'schedule'): Schedule | null | undefined {
  if (!(field in body) || body[field] === undefined) return undefined;
  try {
    return parseSchedule(body[field], field);
  } catch (err) {
    if (err instanceof ScheduleProblem) throw fieldError(err.field, err.message);
    throw err;
  }
}
