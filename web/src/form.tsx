// Forms: values held as text; problems the page can see are all shown at once before
// sending, the API's field error beside its field in the field's own words (its label),
// any other error above the buttons. Every control has a label, a hint and its error tied
// to it with aria-describedby.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describe } from './api';
import { t } from './i18n';

export type Values = Record<string, string | boolean>;
/** Problems found before sending: field name to what is wrong, said after the field's label ("must be …"). */
export type Problems = Record<string, string>;

export const sessionEnded = () => t('form.sessionEnded');

export interface Form<T extends Values> {
  id: string;
  values: T;
  errors: Record<string, string>;
  formError: string;
  busy: boolean;
  labels: Map<string, string>;
  set(name: keyof T & string, value: string | boolean): void;
  reset(values: T): void;
  submit(run: () => Promise<void>, check?: (values: T) => Problems): (e: Event) => void;
}

/**
 * A form over a record that can change elsewhere (the live stream): each new `version` refills
 * it with `current`, unless the admin has started editing it. `shown` is what it last showed.
 */
export function useFollowingForm<T extends Values>(id: string, current: T, version: unknown): { form: Form<T>; shown: { readonly current: T } } {
  const form = useForm(id, current);
  const shown = useRef(current);
  useEffect(() => {
    const untouched = Object.entries(shown.current).every(([k, v]) => form.values[k] === v);
    shown.current = current;
    if (untouched || form.busy) form.reset(shown.current);
  }, [version]);
  return { form, shown };
}

/** The API's "listenPort must be …" as a person reads it beside "Listen port": "Listen port must be …". */
export function withLabel(message: string, field: string, label: string | undefined): string {
  if (!label) return message;
  return message.startsWith(`${field} `) ? `${label} ${message.slice(field.length + 1)}` : `${label}: ${message}`;
}

export function useForm<T extends Values>(id: string, initial: T): Form<T> {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState('');
  const [busy, setBusy] = useState(false);
  const labels = useRef(new Map<string, string>()).current;
  const show = (found: Record<string, string>) => {
    setErrors(found);
    // After the render that shows them: open a folded section and move focus to the first field.
    const first = Object.keys(found)[0];
    setTimeout(() => {
      for (const name of Object.keys(found)) document.getElementById(`${id}-${name}`)?.closest('details')?.setAttribute('open', '');
      document.getElementById(`${id}-${first}`)?.focus();
    });
  };
  return {
    id, values, errors, formError, busy, labels,
    set: (name, value) => {
      setValues((v) => ({ ...v, [name]: value }));
      if (errors[name]) setErrors((e) => { const { [name]: _gone, ...rest } = e; return rest; });
    },
    reset: (v) => { setValues(v); setErrors({}); setFormError(''); },
    submit: (run, check) => async (e: Event) => {
      e.preventDefault();
      setErrors({});
      setFormError('');
      // Every problem the page can see is shown at once, before anything is sent.
      const problems = Object.entries(check?.(values) ?? {}).filter(([name]) => labels.has(name));
      if (problems.length) return show(Object.fromEntries(problems.map(([name, text]) => [name, `${labels.get(name)} ${text}`])));
      setBusy(true);
      try {
        await run();
      } catch (err) {
        if (err instanceof ApiError && err.sessionEnded) setFormError(sessionEnded());
        else if (err instanceof ApiError && err.field && labels.has(err.field)) {
          // Every field the API found bad, each beside its field.
          const all = Object.keys(err.fields).length ? err.fields : { [err.field]: err.message };
          show(Object.fromEntries(Object.entries(all).filter(([f]) => labels.has(f)).map(([f, m]) => [f, withLabel(m, f, labels.get(f))])));
        }
        else setFormError(err instanceof ApiError && err.field ? withLabel(err.message, err.field, labels.get(err.field)) : describe(err));
      } finally {
        setBusy(false);
      }
    },
  };
}

interface FieldProps<T extends Values> {
  form: Form<T>;
  name: keyof T & string;
  label: string;
  hint?: ComponentChildren;
}

function described<T extends Values>(form: Form<T>, name: string, label: string, hint: unknown) {
  form.labels.set(name, label);
  const id = `${form.id}-${name}`;
  const error = form.errors[name];
  const by = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { id, error, attrs: { id, name, 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': by || undefined } };
}

function Extras({ id, hint, error }: { id: string; hint?: ComponentChildren; error?: string }) {
  return (
    <>
      {hint && <p id={`${id}-hint`} class="hint">{hint}</p>}
      {error && <p id={`${id}-error`} class="field-error">{error}</p>}
    </>
  );
}

interface InputAttrs {
  type?: 'text' | 'password' | 'email' | 'url' | 'datetime-local'; placeholder?: string; maxLength?: number; required?: boolean; autoFocus?: boolean;
  autoComplete?: string; inputMode?: 'numeric' | 'decimal' | 'text' | 'email' | 'url'; disabled?: boolean;
}

export function TextField<T extends Values>({ form, name, label, hint, required, ...rest }: FieldProps<T> & InputAttrs) {
  const { id, error, attrs } = described(form, name, label, hint);
  // Preact types each input type apart; these attributes are the same for all of them.
  const inputProps: object = {
    type: 'text', ...rest, ...attrs, required, value: String(form.values[name]),
    onInput: (e: Event) => form.set(name, (e.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={id}>{label}{required ? <span class="req" aria-hidden="true"> *</span> : null}</label>
      <input {...inputProps} />
      <Extras id={id} hint={hint} error={error} />
    </div>
  );
}

export function TextArea<T extends Values>({ form, name, label, hint, rows = 4 }: FieldProps<T> & { rows?: number }) {
  const { id, error, attrs } = described(form, name, label, hint);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea {...attrs} rows={rows} spellcheck={false} value={String(form.values[name])} onInput={(e) => form.set(name, e.currentTarget.value)} />
      <Extras id={id} hint={hint} error={error} />
    </div>
  );
}

export function Checkbox<T extends Values>({ form, name, label, hint }: FieldProps<T>) {
  const { id, error, attrs } = described(form, name, label, hint);
  return (
    <div class="field check">
      <input type="checkbox" {...attrs} checked={Boolean(form.values[name])} onChange={(e) => form.set(name, e.currentTarget.checked)} />
      <label for={id}>{label}</label>
      <Extras id={id} hint={hint} error={error} />
    </div>
  );
}

export function Select<T extends Values>({ form, name, label, hint, options }: FieldProps<T> & { options: [string, string][] }) {
  const { id, error, attrs } = described(form, name, label, hint);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select {...attrs} value={String(form.values[name])} onChange={(e) => form.set(name, e.currentTarget.value)}>
        {options.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
      </select>
      <Extras id={id} hint={hint} error={error} />
    </div>
  );
}

export function FormError({ form }: { form: Form<any> }) {
  return form.formError ? <p class="form-error" role="alert">{form.formError}</p> : null;
}

/** Text to a whole number for the API, or the text itself so that the API names the field. */
export function toInt(text: string | boolean): number | string {
  const s = String(text).trim();
  return /^-?\d+$/.test(s) ? Number(s) : s;
}
