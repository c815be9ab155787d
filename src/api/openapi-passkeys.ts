// The OpenAPI entries of passkeys (issue 38): one's own passkeys (src/api/passkeys.ts) and
// signing in with one (src/api/passkey-sign-in.ts).
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const str = { type: 'string' };
const ts = { type: 'string', format: 'date-time' };
const idParam = { name: 'id', in: 'path', required: true, schema: str };
const std = { 401: error('missing or wrong credentials'), 403: error('the role of the credentials is below the one this route needs (`role` names it)'), 500: error('service failure') };
const cookie = { description: 'session cookie `wgcp_session`', schema: str };

const Passkey = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, name: str, createdAt: ts, lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
    transports: { type: 'array', items: str, description: 'how the browser reaches the authenticator (internal, usb, hybrid, …)' },
  },
};
const answer = { type: 'object', description: "the browser's WebAuthn answer in its JSON form (@simplewebauthn/browser's, or PublicKeyCredential.toJSON())", required: ['id', 'response'] };
const options = (what: string) => ({ description: `the options for navigator.credentials.${what}(); the challenge in it is good for one answer within 2 minutes`, ...json({ type: 'object' }) });
const host = error('the Host names no address or name of this router and WGCP_PUBLIC_URL is unset, or it is an address (passkeys need a name)');
const refused = error('the answer is for no challenge under way (400) or not accepted: signature, origin, relying party, user verification, a counter that did not move forward (401)');
const nameBody = (required: boolean) => ({ requestBody: { required, ...json({ type: 'object', ...(required ? { required: ['name'] } : {}), properties: { name: { type: 'string', maxLength: 64 } } }) } });

export const passkeyApiPaths = {
  '/api/session/passkeys': {
    get: { summary: "The passkeys of the session's key or token, or of its person (never their keys)", responses: { 200: { description: 'by id', ...json({ type: 'array', items: Passkey }) }, ...std, 403: error('the role is too low, or not a page session (passkeys are the page\'s)') } },
    post: {
      summary: "Register a passkey: the browser's answer to the options of …/options",
      requestBody: { required: true, ...json({ type: 'object', required: ['response'], properties: { response: answer, name: { type: 'string', maxLength: 64, description: 'default: Passkey N' } } }) },
      responses: { 201: { description: 'registered', ...json(Passkey) }, 400: refused, 409: error('at most 20 passkeys each; or the WGCP_API_KEY of the environment'), ...std },
    },
  },
  '/api/session/passkeys/options': {
    post: { summary: 'Start registering a passkey', responses: { 200: options('create'), 400: host, 409: error('at most 20 passkeys each; or the WGCP_API_KEY of the environment'), ...std } },
  },
  '/api/session/passkeys/{id}': {
    parameters: [idParam],
    put: { summary: 'Rename one of my passkeys', ...nameBody(true), responses: { 200: { description: 'renamed', ...json(Passkey) }, 400: error('bad name'), 404: error('not one of my passkeys'), ...std } },
    delete: { summary: 'Remove one of my passkeys: it signs in no more', responses: { 204: { description: 'removed' }, 404: error('not one of my passkeys'), ...std } },
  },
  '/api/session/passkey/options': {
    post: {
      summary: "Start signing in with a passkey: with `key`, that key's passkeys (its second factor); without, a person's passkey (a first factor)",
      security: [],
      requestBody: { required: false, ...json({ type: 'object', properties: { key: str } }) },
      responses: { 200: options('get'), 400: host, 401: error('not a live API key or access token (`field` is `key`)'), 403: error('sent from another site; or key sign-in is off for the page'), 409: error('this key or token has no passkey'), 429: error('too many failed sign-ins; see Retry-After') },
    },
  },
  '/api/session/passkey': {
    post: {
      summary: 'Sign in with a passkey: a session cookie, as POST /api/session gives',
      security: [],
      requestBody: { required: true, ...json({ type: 'object', required: ['response'], properties: { key: { type: 'string', description: 'the key or token whose second factor the passkey is; absent for a person\'s passkey' }, response: answer } }) },
      responses: {
        204: { description: 'signed in', headers: { 'Set-Cookie': cookie } },
        400: refused,
        401: error('a key not live; a passkey not registered (or removed, or another key\'s); a second factor used alone; a signature, origin or counter refused'),
        403: error('sent from another site; or single sign-on gives the passkey\'s person no role now'),
        409: error('this key or token has no passkey'),
        429: error('too many failed sign-ins; see Retry-After'),
      },
    },
  },
};
