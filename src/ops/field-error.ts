// The error of a field that breaks a rule: 400, naming the field, raised where the rule is.
import { fieldError } from '../error-registry';

export function badField(field: string, message: string): Error {
  return fieldError(field, message);
}
