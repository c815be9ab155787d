// The page's one way to the JSON API: same origin, the session cookie, JSON in and out.
// An error answer becomes an ApiError with the API's message, its code (WGCP_…, what views
// branch on: the message is for people and may be reworded) and the field it names; a 401
// anywhere but the sign-in means the session ended, and the app shows the sign-in again.
import { t } from './i18n';

export class ApiError extends Error {
  /** Every bad field the API named (its errors.<field> keys), by field. */
  fields: Record<string, string> = {};
  /** The API's code (src/error-registry.ts), '' when the answer had none (not JSON, no connection). */
  code = '';
  constructor(readonly status: number, message: string, readonly field?: string, readonly sessionEnded = false) {
    super(message);
  }
}

let sessionEnded: () => void = () => {};
export function onSessionEnded(fn: () => void): void { sessionEnded = fn; }
/** Tells the app the session is over (the event stream found so). */
export function endSession(): void { sessionEnded(); }

let signedOutWith: (because: string) => void = () => {};
export function onSignedOut(fn: (because: string) => void): void { signedOutWith = fn; }
/** Tells the app the page signed itself out (the key it signed in with was revoked), and why. */
export function signedOut(because: string): void { signedOutWith(because); }

/** Where a 401 is a refused sign-in, not a session that ended. */
const SIGN_IN_PATHS = ['/api/session', '/api/session/passkey/options', '/api/session/passkey'];

async function send(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: body === undefined ? extraHeaders : { 'Content-Type': 'application/json', ...extraHeaders },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, t('api.unreachable'));
  }
  if (res.ok) return res;
  let error = `${res.status} ${res.statusText}`;
  let field: string | undefined;
  let code = '';
  const fields: Record<string, string> = {};
  try {
    const j = (await res.json()) as Record<string, unknown>;
    if (typeof j.error === 'string') error = j.error;
    if (typeof j.field === 'string') field = j.field;
    if (typeof j.code === 'string') code = j.code;
    for (const [k, v] of Object.entries(j)) if (k.startsWith('errors.') && typeof v === 'string') fields[k.slice(7)] = v;
  } catch { /* not JSON: keep the status line */ }
  const ended = res.status === 401 && !SIGN_IN_PATHS.includes(path);
  if (ended) sessionEnded();
  throw Object.assign(new ApiError(res.status, error, field, ended), { fields, code });
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await send(method, path, body);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export const get = <T>(path: string) => api<T>('GET', path);

/** A file the API answers with, as a blob and the name it gives it; headers (a backup's passphrase) go with the request. */
export async function getFile(path: string, headers: Record<string, string> = {}): Promise<{ blob: Blob; name: string }> {
  const res = await send('GET', path, undefined, headers);
  const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? 'download';
  return { blob: await res.blob(), name };
}

/** A page of a list and the count of all that match (X-Total-Count). */
export async function getPage<T>(path: string): Promise<{ items: T[]; total: number }> {
  const res = await send('GET', path);
  const items = (await res.json()) as T[];
  return { items, total: Number(res.headers.get('X-Total-Count') ?? items.length) };
}

/** The text of an error for a person; a failed sign-in reads better than "unauthorized". */
export function describe(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
