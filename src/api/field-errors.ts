// Every bad field of a body at once: each field's reader runs, its 400 is kept, and one 400
// names them all. The contract's error body is a map of strings, so beside `error` and
// `field` (the first problem, as before) each problem is `errors.<field>`: its message.
export class FieldErrors {
  private readonly found: { field: string; message: string; err: Error }[] = [];

  /** Runs one field's reader; a bad field is kept (undefined returned), anything else thrown. */
  read<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      const field = (err as { field?: unknown }).field;
      if ((err as { status?: number }).status === 400 && typeof field === 'string' && !this.found.some((f) => f.field === field)) {
        this.found.push({ field, message: (err as Error).message, err: err as Error });
        return undefined;
      }
      throw err;
    }
  }

  /** Throws the one 400 naming every bad field, when there is any. */
  throwAny(): void {
    if (this.found.length === 0) return;
    const [first] = this.found;
    // The first problem's own error (its code, its field), carrying the others beside it.
    throw Object.assign(first.err, { fieldErrors: Object.fromEntries(this.found.map((f) => [f.field, f.message])) });
  }
}
