// Every error the daemon answers with, by code: its status and its message template. A raise
// site names a code (`throw apiError('WGCP_PEER_NOT_FOUND')`), so the status is decided where
// the error is raised and the body's text in one table; src/http/errors.ts turns the error
// into `{"error": text, "code": code, ...}`. Codes are stable: clients and tests match them,
// never the text. Texts a contract fixes (the device API's, device-agent-api.md section 7) and
// those the docs quote stay byte-exact. `{name}` in a template is filled from the raise site's
// parameters. How to add one: docs/development.md, "Errors".
import createError, { type HttpError } from 'http-errors';

interface ErrorSpec { readonly status: number; readonly message: string }

export const ERRORS = {
  // Any route.
  WGCP_ROUTE_NOT_FOUND: { status: 404, message: 'not found' },
  WGCP_METHOD_NOT_ALLOWED: { status: 405, message: 'method not allowed' },
  WGCP_UNAUTHORIZED: { status: 401, message: 'unauthorized' },
  WGCP_FORBIDDEN_ROLE: { status: 403, message: 'forbidden: needs role {role}' },
  WGCP_FORBIDDEN_PEER_DELETE: { status: 403, message: 'forbidden: needs role {role} ({why})' },
  WGCP_CROSS_SITE: { status: 403, message: 'cross-site request refused: {advice}' },
  WGCP_BODY_TOO_LARGE: { status: 413, message: 'request body is larger than {limit} bytes' },
  WGCP_BODY_UNREADABLE: { status: 400, message: 'request body could not be read: {reason}' },
  WGCP_BODY_NOT_OBJECT: { status: 400, message: 'request body must be a JSON object' },
  WGCP_BODY_TOO_DEEP: { status: 400, message: 'request body nests deeper than {depth} levels' },
  WGCP_MALFORMED_JSON: { status: 400, message: 'malformed JSON in request body' },
  WGCP_FIELD_INVALID: { status: 400, message: '{field} {rule}' },
  WGCP_WEBSOCKET_REQUIRED: { status: 426, message: 'this is a WebSocket endpoint: connect with "Upgrade: websocket"' },
  WGCP_DASHBOARD_NOT_BUILT: { status: 503, message: 'the dashboard is not built: run `npm run build:web`' },
  WGCP_INTERNAL: { status: 500, message: 'internal server error' },
  // A change that failed after its plan: the store or the kernel, with the cause's words.
  WGCP_STORE_FAILED: { status: 500, message: 'the change could not be stored: {reason}' },
  WGCP_KERNEL_FAILED: { status: 500, message: '{reason}' },
  WGCP_CONF_CONTROL_CHARACTER: { status: 500, message: 'the config is not rendered: the {key} of {owner} holds a control character ({character}); correct it through the API' },

  // Resources.
  WGCP_SERVER_NOT_FOUND: { status: 404, message: 'server not found' },
  WGCP_PEER_NOT_FOUND: { status: 404, message: 'peer not found' },
  WGCP_DEVICE_NOT_FOUND: { status: 404, message: 'device not found' },
  WGCP_WEBHOOK_NOT_FOUND: { status: 404, message: 'webhook not found' },
  WGCP_FORWARD_NOT_FOUND: { status: 404, message: 'forward not found' },
  WGCP_SHARE_NOT_FOUND: { status: 404, message: 'share link not found' },
  WGCP_API_KEY_NOT_FOUND: { status: 404, message: 'API key not found' },
  WGCP_ACCESS_TOKEN_NOT_FOUND: { status: 404, message: 'access token not found' },
  WGCP_SITE_LINK_NOT_FOUND: { status: 404, message: 'site link not found' },
  WGCP_REGTOKEN_NOT_FOUND: { status: 404, message: 'token not found' },
  WGCP_PEER_NO_PRIVATE_KEY: { status: 404, message: 'no private key is stored for this peer' },
  WGCP_SHARE_NO_PRIVATE_KEY: { status: 409, message: 'no private key is stored for this peer: it has no config to share' },
  WGCP_SHARE_CLOSED: { status: 409, message: 'share link was {how} already' },
  WGCP_SHARE_LINK_UNKNOWN: { status: 404, message: 'This link does not exist. Ask whoever sent it for a new one.' },
  WGCP_SHARE_LINK_GONE: { status: 410, message: '{text}' },
  WGCP_SHARE_HOST_UNKNOWN: { status: 400, message: "the share link is not made: the request's Host {host} names no address or name of this router, and WGCP_PUBLIC_URL is not set; set WGCP_PUBLIC_URL to the address clients open wgcp at (docs/configuration.md)" },
  // The standby pair (docs/ha.md).
  WGCP_HA_STANDBY: { status: 409, message: 'this router is the standby' },
  WGCP_HA_NOT_PAIRED: { status: 409, message: 'no standby partner is configured (WGCP_HA_PARTNER)' },
  WGCP_HA_NO_VIRTUAL_ADDRESS: { status: 409, message: 'this router does not hold the virtual address {address}: it stays {role}' },
  WGCP_HA_STATE_UNKNOWN: { status: 400, message: 'state must be MASTER, BACKUP or FAULT, got "{state}"' },
  WGCP_LAST_ADMIN: { status: 409, message: '{verb} the last admin key or token would leave no admin: make another admin first' },
  WGCP_FORWARD_PORT_OWN: { status: 409, message: 'listenPort tcp/{port} is a port wgcpd itself listens on' },
  WGCP_FORWARD_PORT_ROUTER: { status: 409, message: 'listenPort {protocol}/{port} is a port the router itself serves; a forward would hide that service' },
  WGCP_INTERFACE_FOREIGN: { status: 409, message: 'interface {name} already exists on this router and was not made by wgcp; choose another name' },
  WGCP_RESTORE_NOT_STAGED: { status: 409, message: 'no restore is staged: run wgcp restore FILE on the router' },
  WGCP_RESTORE_NEEDS_RESTART: { status: 409, message: "the backup carries another router's device salt: wgcpd must start again to take it (wgcp restore does that when it sees one)" },
  WGCP_SMTP_INCOMPLETE: { status: 409, message: 'SMTP settings are incomplete: server and fromEmail are needed' },
  WGCP_SMTP_DISABLED: { status: 409, message: 'SMTP is not enabled: save settings with "enabled": true at /api/settings/smtp' },
  WGCP_MAIL_NOT_SENT: { status: 502, message: 'mail was not sent: {reason}' },
  WGCP_WEBHOOK_TEST_FAILED: { status: 502, message: 'test delivery failed: {reason}' },

  // Signing in and two-factor sign-in.
  WGCP_SIGN_IN_THROTTLED: { status: 429, message: 'too many failed sign-ins: try again in {wait} s' },
  WGCP_TOTP_CODE_REQUIRED: { status: 401, message: 'two-factor code required' },
  WGCP_TOTP_CODE_WRONG: { status: 401, message: 'wrong or used two-factor code' },
  WGCP_TOTP_PAGE_ONLY: { status: 403, message: 'two-factor sign-in is set up from the page, signed in' },
  WGCP_TOTP_ENVIRONMENT_KEY: { status: 409, message: 'the WGCP_API_KEY of the environment has no two-factor sign-in: sign in with a stored API key or token' },
  WGCP_TOTP_ALREADY_ON: { status: 409, message: 'two-factor sign-in is on already: turn it off first' },
  WGCP_TOTP_NO_ENROLMENT: { status: 409, message: 'no two-factor enrolment is under way: start one first' },
  WGCP_TOTP_NOT_ON: { status: 409, message: 'two-factor sign-in is not on' },
  WGCP_KEY_SIGN_IN_OFF: { status: 403, message: 'key sign-in is turned off for the page: sign in with single sign-on' },
  WGCP_SSO_NOT_SET_UP: { status: 404, message: 'single sign-on is not set up on this router (WGCP_OIDC_ISSUER)' },
  WGCP_SESSION_NOT_FOUND: { status: 404, message: 'no such session' },

  // Passkeys (WebAuthn): a second factor of a key or token, or a person's first factor.
  WGCP_PASSKEY_PAGE_ONLY: { status: 403, message: 'passkeys are registered from the page, signed in' },
  WGCP_PASSKEY_ENVIRONMENT_KEY: { status: 409, message: 'the WGCP_API_KEY of the environment has no passkeys: sign in with a stored API key or token' },
  WGCP_PASSKEY_NOT_FOUND: { status: 404, message: 'passkey not found' },
  WGCP_PASSKEY_LIMIT: { status: 409, message: 'at most {max} passkeys each: remove one first' },
  WGCP_PASSKEY_HOST_UNKNOWN: { status: 400, message: "passkeys need to know this router's name: the request's Host {host} names no address or name of this router, and WGCP_PUBLIC_URL is not set; set WGCP_PUBLIC_URL (docs/access.md)" },
  WGCP_PASSKEY_HOST_ADDRESS: { status: 400, message: 'passkeys need a name, not an address: open the page at a name of this router (localhost on the router itself) or set WGCP_PUBLIC_URL; the Host was {host}' },
  WGCP_PASSKEY_CHALLENGE: { status: 400, message: 'this passkey answer is for no challenge wgcpd has under way (used already, older than 2 minutes, or for something else): start again' },
  WGCP_PASSKEY_REFUSED: { status: 401, message: 'the passkey was not accepted: {why}' },
  WGCP_PASSKEY_UNKNOWN: { status: 401, message: 'this passkey is not registered here (it may have been removed)' },
  WGCP_PASSKEY_REQUIRED: { status: 401, message: 'this key signs in with a passkey as its second factor' },
  WGCP_PASSKEY_NONE: { status: 409, message: 'this key or token has no passkey' },
  WGCP_PASSKEY_SECOND_FACTOR: { status: 401, message: 'this passkey is the second factor of a key or token: sign in with the key first' },
  WGCP_PASSKEY_NO_ROLE: { status: 403, message: 'single sign-on gives this person no role (their last sign-in was refused, or single sign-on is off): sign in with single sign-on' },

  // The device API (device-agent-api.md section 7 fixes these texts).
  WGCP_DEVICE_TOKEN_FORMAT: { status: 400, message: 'invalid token format' },
  WGCP_DEVICE_HARDWARE_ID: { status: 400, message: 'invalid hardware id' },
  WGCP_DEVICE_TOKEN_INVALID: { status: 403, message: 'invalid token' },
  WGCP_DEVICE_TOKEN_USED: { status: 400, message: 'token already used' },
  WGCP_DEVICE_TOKEN_EXPIRED: { status: 403, message: 'token expired' },
  WGCP_PROVISIONING_FAILED: { status: 500, message: 'provisioning failed' },
  WGCP_PROVISIONING_THROTTLED: { status: 429, message: 'too many failed provisioning attempts; try again later' },
  WGCP_DEVICE_ID_INVALID: { status: 400, message: 'invalid device id' },
  WGCP_DEVICE_SUSPENDED: { status: 403, message: 'device is suspended' },
  WGCP_HEARTBEAT_FAILED: { status: 500, message: 'heartbeat failed' },
  WGCP_DEVICE_THROTTLED: { status: 429, message: 'too many device requests; try again later' },
  // wgcp's own heartbeat field `networks` (docs/device-api.md): the whole set is refused, the rule named.
  WGCP_DEVICE_NETWORKS_REFUSED: { status: 400, message: 'networks refused: {reason}' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** The `{name}` holes of a template, as a union of names. */
type Holes<S extends string> = S extends `${string}{${infer K}}${infer Rest}` ? K | Holes<Rest> : never;
type ParamsOf<C extends ErrorCode> = Record<Holes<(typeof ERRORS)[C]['message']>, string | number>;
/** A code whose template has holes takes its parameters; one without takes none. */
type ParamArgs<C extends ErrorCode> = [Holes<(typeof ERRORS)[C]['message']>] extends [never] ? [params?: Record<string, never>] : [params: ParamsOf<C>];

/** Extra properties an error body or response may carry: the bad field, the role a 403 needed, a standby's primary, headers. */
export interface ErrorExtras { field?: string; role?: string; primary?: string; headers?: Record<string, string> }

/** Fills `{name}` holes; a hole without its parameter is a defect of the raise site, so it throws. */
export function fillTemplate(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!Object.hasOwn(params, name)) throw new Error(`error template "${template}" needs the parameter ${name}`);
    return String(params[name]);
  });
}

/** The error of a registered code, to throw. Its status and text come from the registry. */
export function apiError<C extends ErrorCode>(code: C, ...args: [...ParamArgs<C>, ErrorExtras?]): HttpError {
  const params = args[0] as Record<string, string | number> | undefined;
  const extras = args[1] as ErrorExtras | undefined;
  const { status, message } = ERRORS[code] as ErrorSpec;
  // A 5xx raised on purpose keeps its text for the client; http-errors hides it by default.
  return createError(status, fillTemplate(message, params ?? {}), { ...extras, code, expose: true });
}

/** 400 naming the field that breaks a rule: `{"error": "<field> <rule>", "code": "WGCP_FIELD_INVALID", "field": ...}`. */
export function fieldError(field: string, rule: string): HttpError {
  return apiError('WGCP_FIELD_INVALID', { field, rule }, { field });
}

/**
 * Every bad field of a body at once: each field's reader runs, its 400 is kept, and one 400
 * names them all. The contract's error body is a map of strings, so beside `error` and
 * `field` (the first problem) each problem is `errors.<field>`: its message.
 */
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

/** The code of an error raised without one: generic by its status, `WGCP_HTTP_<status>`. */
export const genericCode = (status: number): string => `WGCP_HTTP_${status}`;

/** True when `code` is one of the registry's codes. */
export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(ERRORS, code);
