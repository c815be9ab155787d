// The OpenAPI entries of issue 26 (audit log, two-factor sign-in; the share links' are on their routes) and of `wgcp check` through the daemon,
// stamp that names each control route's least role as `x-wgcp-role`: the role its route declares.
import type { Route } from '../http/router';

const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const str = { type: 'string' };
const int = { type: 'integer', format: 'int64' };
const ts = { type: 'string', format: 'date-time' };
const nullable = (t: string) => ({ type: [t, 'null'] });
const idParam = { name: 'id', in: 'path', required: true, schema: str };
const std = { 401: error('missing or wrong credentials'), 403: error('the role of the credentials is below the one this route needs (`role` names it)'), 500: error('service failure') };

const AuditEntry = {
  type: 'object',
  properties: {
    id: int, at: ts,
    actor: { type: 'object', properties: { kind: { enum: ['apikey', 'token', 'page', 'person', 'reconciler', 'job', 'cli', 'share', 'device'] }, id: nullable('integer'), name: str } },
    address: { ...nullable('string'), description: 'source address of the request' }, role: { type: ['string', 'null'], enum: ['admin', 'operator', 'viewer', null] },
    action: { ...str, description: 'e.g. peer.update, share.use, session.sign-in-failed' },
    targetType: str, targetId: nullable('string'), summary: { type: 'object', description: 'what changed, secrets left out' },
  },
};

const TotpState = { type: 'object', properties: { enabled: { type: 'boolean' }, pending: { type: 'boolean' }, recoveryCodesLeft: { type: 'integer' } } };
const codeBody = { requestBody: { required: true, ...json({ type: 'object', required: ['code'], properties: { code: { ...str, description: 'a 6-digit code of the authenticator app (or a recovery code)' } } }) } };

const SignedIn = {
  type: 'object',
  properties: {
    id: int, kind: { enum: ['person', 'apikey', 'token'] }, name: { ...str, description: 'a person: email (subject); a key or token: its name' },
    role: { enum: ['admin', 'operator', 'viewer'] }, subject: nullable('string'), email: nullable('string'), credentialID: nullable('integer'),
    createdAt: ts, lastSeenAt: ts, expiresAt: ts,
  },
};

export const accessApiPaths = {
  '/api/sessions': {
    get: { summary: 'Who is signed in to the page: the live sessions, most recently used first', responses: { 200: { description: 'the sessions', ...json({ type: 'object', properties: { sessions: { type: 'array', items: SignedIn } } }) }, ...std } },
  },
  '/api/sessions/{id}': {
    parameters: [idParam],
    delete: { summary: 'End one page session (audited as session.end)', responses: { 204: { description: 'ended' }, 404: error('no such session'), ...std } },
  },
  '/api/people/{subject}/sessions': {
    parameters: [{ name: 'subject', in: 'path', required: true, schema: str, description: "the person's subject at the single sign-on provider" }],
    delete: { summary: 'End every page session of a person (audited as person.sessions-end)', responses: { 200: { description: 'how many ended', ...json({ type: 'object', properties: { ended: { type: 'integer' } } }) }, 400: error('bad subject'), ...std } },
  },
  '/api/audit': {
    get: {
      summary: 'The audit log, newest first, a page at a time',
      parameters: [
        { name: 'actor', in: 'query', schema: str, description: 'an actor kind, or kind:id (e.g. apikey:3)' },
        { name: 'target', in: 'query', schema: str, description: 'a target type, or type:id (e.g. peer:12)' },
        { name: 'action', in: 'query', schema: str, description: 'an action, or its prefix up to a dot (peer matches peer.update)' },
        { name: 'since', in: 'query', schema: ts }, { name: 'until', in: 'query', schema: ts, description: 'exclusive' },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        { name: 'cursor', in: 'query', schema: { type: 'integer' }, description: 'the nextCursor of the previous page' },
        { name: 'after', in: 'query', schema: { type: 'integer' }, description: 'instead of cursor: oldest first, from the entry after this id (nextCursor then continues the same way)' },
      ],
      responses: { 200: { description: 'a page', ...json({ type: 'object', properties: { entries: { type: 'array', items: AuditEntry }, nextCursor: nullable('integer') } }) }, 400: error('a bad query parameter (`field` names it)'), ...std },
    },
  },
  '/api/kernel/check': {
    get: {
      summary: "`wgcp check` done by the daemon: the kernel compared with the database, nothing repaired (the CLI's way on the admin socket, where it lacks CAP_NET_ADMIN)",
      responses: { 200: { description: 'the report; `same` is false when something differs', ...json({ type: 'object', properties: { same: { type: 'boolean' }, differences: { type: 'array', items: { type: 'object', properties: { kind: { enum: ['link', 'peer', 'ipv6', 'nft', 'shaping'] }, summary: { ...str, description: 'what differs, no keys' } } } } } }) }, ...std },
    },
  },
  '/api/session/totp': {
    get: { summary: "Two-factor sign-in of the session's key or token", responses: { 200: { description: 'its state', ...json(TotpState) }, ...std } },
    post: { summary: 'Start an enrolment: the secret and its QR code (SVG), shown only here', responses: { 200: { description: 'the secret', ...json({ type: 'object', properties: { secret: str, uri: str, qrSvg: str } }) }, 409: error('on already'), ...std } },
    delete: { summary: 'Turn two-factor sign-in off (needs a current code or a recovery code)', ...codeBody, responses: { 204: { description: 'off' }, 400: error('bad code'), 409: error('not on'), ...std } },
  },
  '/api/session/totp/confirm': {
    post: { summary: 'Turn two-factor sign-in on with a first code; the answer holds the ten recovery codes, once', ...codeBody, responses: { 200: { description: 'on', ...json({ type: 'object', properties: { recoveryCodes: { type: 'array', items: str } } }) }, 400: error('bad code'), 409: error('no enrolment under way'), ...std } },
  },
};

const METHODS = ['get', 'put', 'post', 'delete'];

/** Each operation with credentials gets `x-wgcp-role`: the role its route declares, the one the router enforces. */
export function markRoles(paths: Record<string, Record<string, unknown>>, routes: readonly Route[]): void {
  const roles = new Map(routes.map((r) => [`${r.method} ${r.path}`, r.role]));
  for (const [p, item] of Object.entries(paths)) {
    const routePath = p.replace(/\{(\w+)\}/g, ':$1');
    for (const m of METHODS) {
      const op = item[m] as { security?: unknown[]; 'x-wgcp-role'?: string } | undefined;
      if (!op || (Array.isArray(op.security) && op.security.length === 0)) continue;
      const role = roles.get(`${m.toUpperCase()} ${routePath}`);
      if (role !== undefined) op['x-wgcp-role'] = role;
    }
  }
}
