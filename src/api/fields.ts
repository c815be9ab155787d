// Reading typed fields out of a request body. Every refusal is a 400 that names the field.
import { apiError, type ErrorCode } from '../error-registry';
import { badField } from '../ops/field-error';
import { nameProblem } from '../ops/name-rule';
import { HOSTNAME } from '../wg/hostname';

export { badField };

export type Body = Record<string, unknown>;

const present = (body: Body, field: string): boolean => body[field] !== undefined && body[field] !== null;

export function readString(body: Body, field: string, opts: { max: number; min?: number; pattern?: RegExp; describe?: string }): string | undefined {
  if (!present(body, field)) return undefined;
  const v = body[field];
  if (typeof v !== 'string') throw badField(field, 'must be a string');
  if (v.length > opts.max) throw badField(field, `must be at most ${opts.max} characters`);
  if (v.length < (opts.min ?? 0)) throw badField(field, opts.min === 1 ? 'must not be empty' : `must be at least ${opts.min} characters`);
  if (opts.pattern && !opts.pattern.test(v)) throw badField(field, `must be ${opts.describe ?? `like ${opts.pattern}`}`);
  return v;
}

/** A name people give a thing: a string as readString takes it that also keeps the name rule (ops/name-rule.ts). */
export function readName(body: Body, field: string, opts: { max: number; min?: number }): string | undefined {
  const v = readString(body, field, opts);
  const problem = v === undefined ? null : nameProblem(v);
  if (problem) throw badField(field, problem);
  return v;
}

export function readBool(body: Body, field: string): boolean | undefined {
  if (!present(body, field)) return undefined;
  if (typeof body[field] !== 'boolean') throw badField(field, 'must be true or false');
  return body[field] as boolean;
}

export function readInt(body: Body, field: string, min: number, max: number): number | undefined {
  if (!present(body, field)) return undefined;
  const v = body[field];
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badField(field, 'must be a whole number');
  if (v < min || v > max) throw badField(field, `must be between ${min} and ${max}`);
  return v;
}

export function readIntArray(body: Body, field: string, min: number, max: number, maxItems: number): number[] | undefined {
  if (!present(body, field)) return undefined;
  const v = body[field];
  if (!Array.isArray(v)) throw badField(field, 'must be an array of whole numbers');
  if (v.length > maxItems) throw badField(field, `must have at most ${maxItems} elements`);
  for (const n of v) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
      throw badField(field, `must hold whole numbers between ${min} and ${max}`);
    }
  }
  return [...new Set(v as number[])].sort((a, b) => a - b);
}

export function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw badField(field, 'is required');
  return value;
}

export function oneOf<T extends string>(body: Body, field: string, allowed: readonly T[]): T | undefined {
  if (!present(body, field)) return undefined;
  const v = body[field];
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw badField(field, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`);
  }
  return v as T;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** A timestamp field where null or "" mean "never". Returned normalised to UTC with milliseconds. */
export function readTimestamp(body: Body, field: string): string | null | undefined {
  if (!(field in body) || body[field] === undefined) return undefined;
  const v = body[field];
  if (v === null || v === '') return null;
  if (typeof v !== 'string') throw badField(field, 'must be an RFC 3339 timestamp, null or ""');
  const m = RFC3339.exec(v);
  const ms = Date.parse(v);
  if (!m || Number.isNaN(ms) || Number(m[2]) > 12 || Number(m[3]) > 31 || Number(m[4]) > 23) {
    throw badField(field, 'must be an RFC 3339 timestamp such as 2026-12-31T23:59:59Z, null or ""');
  }
  return new Date(ms).toISOString();
}

/** The 404 of each resource a path names by id. */
export const NOT_FOUND = {
  server: 'WGCP_SERVER_NOT_FOUND', peer: 'WGCP_PEER_NOT_FOUND', device: 'WGCP_DEVICE_NOT_FOUND', webhook: 'WGCP_WEBHOOK_NOT_FOUND',
  forward: 'WGCP_FORWARD_NOT_FOUND', 'share link': 'WGCP_SHARE_NOT_FOUND', 'API key': 'WGCP_API_KEY_NOT_FOUND', 'access token': 'WGCP_ACCESS_TOKEN_NOT_FOUND',
  'site link': 'WGCP_SITE_LINK_NOT_FOUND',
} as const satisfies Record<string, ErrorCode>;

/** Parses a path id: a positive integer, or the resource is simply not there (404). */
export function parseId(text: string, what: keyof typeof NOT_FOUND): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) throw apiError(NOT_FOUND[what]);
  return Number(text);
}

export { HOSTNAME };
export { EMAIL } from '../ops/value-rules';
