// The OpenAPI entries of the dashboard's routes (session.ts, static-assets.ts), spread into
// the API's document (api/openapi-doc.ts) so that it keeps describing every route served.
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const cookie = { description: 'session cookie `wgcp_session` (HttpOnly, SameSite=Strict, Secure under TLS, Path=/)', schema: { type: 'string' } };
const SessionState = {
  type: 'object',
  properties: {
    signedIn: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time', description: 'absolute end of the session' },
    idleExpiresAt: { type: 'string', format: 'date-time', description: 'end of the session if it stays unused' },
    role: { enum: ['admin', 'operator', 'viewer'], description: 'the role of the key or token the session was opened with, now; a person: the role the mapping gave at sign-in' },
    name: { type: 'string' }, kind: { enum: ['apikey', 'token', 'person'], description: 'person: signed in by single sign-on' },
    subject: { type: ['string', 'null'], description: "a person's subject at the provider" }, email: { type: ['string', 'null'] },
    singleSignOn: { type: 'boolean', description: 'whether the page offers single sign-on (GET /api/oidc/login)' },
    keySignIn: { type: 'boolean', description: 'whether the page takes a key or token (WGCP_PAGE_KEY_SIGN_IN)' },
    credentialID: { type: ['integer', 'null'], description: 'null: the WGCP_API_KEY of the environment' },
    twoFactor: { type: ['boolean', 'null'], description: 'whether two-factor sign-in is on for it (null: not available)' },
  },
};

export const pageApiPaths = {
  '/api/session': {
    post: {
      summary: 'Sign in to the dashboard: a session cookie for an API key or access token',
      security: [],
      requestBody: { required: true, ...json({ type: 'object', required: ['key'], properties: { key: { type: 'string' }, code: { type: 'string', description: 'the two-factor code (or a recovery code), when the key has two-factor sign-in on' } } }) },
      responses: {
        204: { description: 'signed in', headers: { 'Set-Cookie': cookie } },
        400: error('no key, or not a string; or a body nested deeper than 32 levels'),
        401: error('not a live API key or access token (`field` is `key`); or a two-factor code missing, wrong or used (`field` is `code`)'),
        403: error('sent from another site; or key sign-in is turned off for the page (WGCP_PAGE_KEY_SIGN_IN=off)'),
        413: error('body larger than 4 KiB: refused on Content-Length before it is read, or as soon as a chunked body passes it'),
        429: error('too many failed sign-ins from this address, or too many wrong codes for this key from anywhere; see Retry-After'),
      },
    },
    get: {
      summary: 'Whether the session cookie is live (touches it)',
      security: [],
      responses: { 200: { description: 'the session, or signedIn false', ...json(SessionState) } },
    },
    delete: {
      summary: 'Sign out: ends the session and clears the cookie',
      security: [],
      responses: {
        200: { description: "signed out here; a person signed in by single sign-on goes on to the provider's sign-out", headers: { 'Set-Cookie': cookie }, ...json({ type: 'object', properties: { endSessionUrl: { type: 'string', description: "the provider's end_session_endpoint, coming back to WGCP_PUBLIC_URL" } } }) },
        204: { description: 'signed out', headers: { 'Set-Cookie': cookie } }, 403: error('sent from another site with a live cookie'),
      },
    },
  },
  '/api/oidc/login': {
    get: {
      summary: 'Single sign-on: sends the browser to the provider (authorization code flow with PKCE, state and nonce)',
      security: [],
      responses: {
        302: { description: "to the provider's authorization endpoint; sets the cookie `wgcp_oidc` (HttpOnly, SameSite=Lax, Path=/api/oidc/, 10 minutes) that ties the return to this browser" },
        404: error('single sign-on is not set up (WGCP_OIDC_ISSUER)'),
        502: { description: 'the provider could not be reached (an HTML page)', content: { 'text/html': {} } },
      },
    },
  },
  '/api/oidc/callback': {
    get: {
      summary: "Single sign-on: the provider's redirect back; the ID token is checked and mapped to a role (WGCP_OIDC_ROLES)",
      security: [],
      parameters: [{ name: 'code', in: 'query', schema: { type: 'string' } }, { name: 'state', in: 'query', schema: { type: 'string' } }, { name: 'iss', in: 'query', schema: { type: 'string' } }],
      responses: {
        303: { description: 'signed in: to the page, with the session cookie', headers: { 'Set-Cookie': cookie } },
        400: { description: 'a check failed (state, nonce, signature, audience, expiry, a code used already, a sign-in not started in this browser): an HTML page saying which', content: { 'text/html': {} } },
        403: { description: "no rule of the role mapping gives this person a role, or the provider refused: an HTML page saying so", content: { 'text/html': {} } },
        404: error('single sign-on is not set up'),
      },
    },
  },
  '/': {
    get: {
      summary: 'The dashboard page (HTML)',
      security: [],
      responses: { 200: { description: 'the page', content: { 'text/html': {} } }, 503: error('the page is not built') },
    },
  },
  '/assets/{name}': {
    parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
    get: {
      summary: "The dashboard's scripts, styles and icon, named by content hash",
      security: [],
      responses: { 200: { description: 'the file' }, 404: error('no such file') },
    },
  },
};
