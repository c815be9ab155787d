// A real OpenID provider for the single sign-on suites: `oidc-provider` (the certified Node
// implementation) on loopback, with its development login page (any password) and the
// accounts a test names. It answers behind a small proxy that is its issuer URL: the
// proxy passes everything through, and when a test asks, rewrites the token endpoint's ID
// token (another nonce, expired, another audience, signed by a key the provider does not
// publish) so that the daemon's checks of each can be shown to refuse it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { tempDir } from './daemon';

export type Tamper = 'nonce' | 'expired' | 'audience' | 'signature';
export interface Account { email: string; groups: string[] }

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Set to rewrite the next ID tokens the token endpoint gives; null passes them through. */
  tamper: Tamper | null;
  close(): Promise<void>;
}

// The provider's notices about its development defaults (in-memory store, its own login
// page, the Node version) are what a test provider is: kept out of the suites' output.
for (const level of ['info', 'warn'] as const) {
  const write = console[level].bind(console);
  console[level] = (...args: unknown[]) => { if (!(typeof args[0] === 'string' && args[0].startsWith('oidc-provider '))) write(...args); };
}

const importEsm = new Function('s', 'return import(s)') as (s: string) => Promise<{ default: new (issuer: string, config: unknown) => { callback(): http.RequestListener } }>;
const KID = 'wgcp-test-key';

const listen = (server: http.Server): Promise<number> => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

function signJwt(payload: Record<string, unknown>, key: crypto.KeyObject): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const data = `${part({ alg: 'RS256', kid: KID, typ: 'JWT' })}.${part(payload)}`;
  return `${data}.${crypto.sign('sha256', Buffer.from(data), key).toString('base64url')}`;
}

function tampered(idToken: string, how: Tamper, key: crypto.KeyObject): string {
  const payload = JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
  const now = Math.floor(Date.now() / 1000);
  if (how === 'nonce') payload.nonce = 'a-nonce-this-sign-in-never-sent';
  if (how === 'expired') Object.assign(payload, { iat: now - 7200, exp: now - 3600 });
  if (how === 'audience') payload.aud = 'another-client';
  // Signed by a key of the same id that the provider's JWKS does not hold.
  const signer = how === 'signature' ? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey : key;
  return signJwt(payload, signer);
}

/** Starts the provider for a daemon whose public URL is `publicUrl`. */
/**
 * The daemon's single sign-on settings for `provider` at `publicUrl`, with `roles` as the
 * role mapping: the client secret is written to a 0600 file, as an operator would keep it.
 */
export function oidcEnv(provider: TestProvider, publicUrl: string, roles: string): Record<string, string> {
  const secretFile = path.join(tempDir('wgcp-oidc-'), 'client-secret');
  fs.writeFileSync(secretFile, provider.clientSecret, { mode: 0o600 });
  return {
    WGCP_PUBLIC_URL: publicUrl, WGCP_OIDC_ISSUER: provider.issuer, WGCP_OIDC_CLIENT_ID: provider.clientId,
    WGCP_OIDC_CLIENT_SECRET_FILE: secretFile, WGCP_OIDC_ROLES: roles, WGCP_OIDC_SCOPES: 'openid email groups',
  };
}

export async function startTestProvider(publicUrl: string, accounts: Record<string, Account>): Promise<TestProvider> {
  const { default: Provider } = await importEsm('oidc-provider');
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const front = http.createServer();
  const frontPort = await listen(front);
  const issuer = `http://127.0.0.1:${frontPort}`;
  const clientId = 'wgcp-router';
  const clientSecret = crypto.randomBytes(24).toString('base64url');
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, token_endpoint_auth_method: 'client_secret_post',
      redirect_uris: [`${publicUrl}/api/oidc/callback`], post_logout_redirect_uris: [`${publicUrl}/`],
      grant_types: ['authorization_code'], response_types: ['code'],
    }],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' }] },
    findAccount: (_ctx: unknown, sub: string) => (accounts[sub] ? {
      accountId: sub,
      claims: () => ({ sub, email: accounts[sub].email, email_verified: true, groups: accounts[sub].groups }),
    } : undefined),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
    // The claims of the scopes go into the ID token itself (as Keycloak and Entra do for groups).
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
  });
  const back = http.createServer(provider.callback());
  const backPort = await listen(back);
  const p: TestProvider = { issuer, clientId, clientSecret, tamper: null, close: async () => {
    await new Promise<void>((r) => { front.close(() => r()); front.closeAllConnections(); });
    await new Promise<void>((r) => { back.close(() => r()); back.closeAllConnections(); });
  } };
  front.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const out = http.request({ host: '127.0.0.1', port: backPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          let text = Buffer.concat(body);
          const headers = { ...answer.headers };
          if (p.tamper !== null && req.method === 'POST' && (req.url ?? '').startsWith('/token') && answer.statusCode === 200) {
            const json = JSON.parse(text.toString()) as { id_token?: string };
            if (json.id_token) json.id_token = tampered(json.id_token, p.tamper, privateKey);
            text = Buffer.from(JSON.stringify(json));
          }
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, { ...headers, 'content-length': text.length });
          res.end(text);
        });
      });
      out.on('error', () => { res.writeHead(502); res.end(); });
      out.end(Buffer.concat(chunks));
    });
  });
  return p;
}

/** A loopback port free now, for a daemon whose public URL must be known before it starts. */
export function freePort(): Promise<number> {
  const s = http.createServer();
  return listen(s).then((port) => new Promise((resolve) => s.close(() => resolve(port))));
}

/** A browser's cookies, by name, for the HTTP-driven sign-ins. */
class Jar {
  readonly values = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (/max-age=0/i.test(line) || value === '') this.values.delete(pair.slice(0, eq));
      else this.values.set(pair.slice(0, eq), value);
    }
  }
  header(): string { return [...this.values].map(([k, v]) => `${k}=${v}`).join('; '); }
}

export interface ProviderAnswer { callbackUrl: string; pendingCookie: string }

/**
 * Signs in at the provider as a browser would, without one: the daemon's login redirect,
 * the provider's login form (`login`, any password) and consent, up to the redirect back
 * to the daemon's callback, which is returned unopened with the daemon's pending cookie.
 */
export async function signInAtProvider(daemonUrl: string, login: string): Promise<ProviderAnswer> {
  const daemonJar = new Jar();
  const start = await fetch(`${daemonUrl}/api/oidc/login`, { redirect: 'manual' });
  daemonJar.take(start);
  const pendingCookie = daemonJar.header();
  const jar = new Jar();
  let next: { url: string; init: RequestInit } = { url: start.headers.get('location')!, init: {} };
  for (let step = 0; step < 20; step++) {
    if (next.url.startsWith(`${daemonUrl}/api/oidc/callback`)) return { callbackUrl: next.url, pendingCookie };
    const res = await fetch(next.url, { ...next.init, redirect: 'manual', headers: { ...(next.init.headers as Record<string, string>), cookie: jar.header() } });
    jar.take(res);
    if (res.status >= 300 && res.status < 400) {
      next = { url: new URL(res.headers.get('location')!, next.url).href, init: {} };
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 300)}`);
    const form: Record<string, string> = html.includes('name="login"') ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' };
    next = { url: new URL(action.replace(/&amp;/g, '&'), next.url).href, init: { method: 'POST', body: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } } };
  }
  throw new Error('the provider never sent the browser back');
}
