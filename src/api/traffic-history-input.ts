// The usage query: step (5m, 1h or 1d; 1h when absent), from and to (ISO 8601 times with a
// zone). Without from, a step reaches back as far as its tier keeps; without to, up to now.
import type { URLSearchParams } from 'node:url';
import { badField } from '../ops/field-error';
import { STEP_NAMES, tierOf, unixSeconds, type StepName } from '../history/tiers';

export interface UsageQuery { step: StepName; from: number; to: number }

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

function timeParam(query: URLSearchParams, name: 'from' | 'to'): number | null {
  const text = query.get(name);
  if (text === null) return null;
  const ms = ISO_TIME.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw badField(name, 'must be an ISO 8601 time with a zone, for example 2026-11-23T10:00:00Z');
  return Math.floor(ms / 1000);
}

export function readUsageQuery(query: URLSearchParams, now: Date): UsageQuery {
  const stepText = query.get('step') ?? '1h';
  if (!(STEP_NAMES as readonly string[]).includes(stepText)) throw badField('step', `must be one of ${STEP_NAMES.join(', ')}`);
  const step = stepText as StepName;
  // The end is exclusive: a second past now takes in the bucket being filled.
  const to = timeParam(query, 'to') ?? unixSeconds(now) + 1;
  const from = timeParam(query, 'from') ?? to - tierOf(step).keepSeconds;
  if (from >= to) throw badField('from', 'must be before to');
  return { step, from, to };
}
