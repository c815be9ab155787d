// The error of a field that breaks a rule: 400, naming the field, raised where the rule is.
import createError from 'http-errors';

export function badField(field: string, message: string): Error {
  return createError(400, `${field} ${message}`, { field });
}
