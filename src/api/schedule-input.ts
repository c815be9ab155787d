// A peer's `schedule` as the API takes it: absent (unchanged), null (none) or a schedule,
// refused with a 400 that names the field inside it (`schedule.windows[0].from`).
import { parseSchedule, ScheduleProblem, type Schedule } from '../schedule/rules';
import { badField, type Body } from './fields';

export function readSchedule(body: Body, field = 'schedule'): Schedule | null | undefined {
  if (!(field in body) || body[field] === undefined) return undefined;
  try {
    return parseSchedule(body[field], field);
  } catch (err) {
    if (err instanceof ScheduleProblem) throw badField(err.field, err.message);
    throw err;
  }
}
