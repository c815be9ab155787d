// A peer's monthly data limit as the API takes it: the contract's dataLimitGB (a whole
// number of GB), or dataLimitGiB, the same unit with one decimal (1.5), outside the
// contract (docs/api.md). Both at once must name the same limit as it is shown.
import { MAX_LIMIT_GB, isTenthsLimit, wholeGB } from '../data-limit';
import { badField, readInt, type Body } from './fields';

/** `whole`: the limit came as the contract's integer (an echo of a rounded limit keeps the exact one: ops/peers.ts). */
export interface DataLimitInput { dataLimitGB?: number; dataLimitWhole?: boolean }

export function readDataLimit(body: Body): DataLimitInput {
  const whole = readInt(body, 'dataLimitGB', 0, MAX_LIMIT_GB);
  const v = body.dataLimitGiB;
  if (v === undefined || v === null) return whole === undefined ? {} : { dataLimitGB: whole, dataLimitWhole: true };
  if (typeof v !== 'number' || !isTenthsLimit(v)) throw badField('dataLimitGiB', `must be a number of GiB from 0 to ${MAX_LIMIT_GB} with at most one decimal, such as 1.5`);
  const exact = Math.round(v * 10) / 10;
  if (whole !== undefined && whole !== wholeGB(exact)) throw badField('dataLimitGiB', `must name the limit dataLimitGB names (${exact} GiB reads ${wholeGB(exact)} there): give one of them`);
  return { dataLimitGB: exact };
}
