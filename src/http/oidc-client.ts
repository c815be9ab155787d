// The OpenID Connect relying party, by openid-client (certified): discovery from the issuer,
// the authorization URL with PKCE, state and nonce, and the code exchange whose ID token is
// checked (signature against the provider's JWKS, issuer, audience, expiry, nonce). The
// library is ESM and large: it is imported at the first single sign-on, never at start
// (a router's memory), through an import() that tsc leaves alone.
import type * as OpenIdClient from 'openid-client';
import type { OidcSettings } from '../access/oidc-settings';

type Lib = typeof OpenIdClient;
// tsc compiles `import()` to require() for CommonJS, which cannot load an ESM-only package.
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Lib>;

/** What the sign-in keeps between sending the browser to the provider and its return. */
export interface PendingSignIn { state: string; nonce: string; codeVerifier: string }

/** The verified ID token's claims. */
export type IdClaims = Record<string, unknown> & { sub: string; email?: unknown };

export class OidcClient {
  private lib: Lib | null = null;
  private config: OpenIdClient.Configuration | null = null;

  constructor(private readonly settings: OidcSettings) {}

  /** The library and the provider's discovered configuration, made once (again after a failure). */
  private async ready(): Promise<{ lib: Lib; config: OpenIdClient.Configuration }> {
    const lib = this.lib ?? (this.lib = await importEsm('openid-client'));
    if (this.config === null) {
      const { issuer, clientId, clientSecret } = this.settings;
      const url = new URL(issuer);
      const execute = [lib.enableNonRepudiationChecks, ...(url.protocol === 'http:' ? [lib.allowInsecureRequests] : [])];
      const auth = clientSecret === null ? lib.None() : lib.ClientSecretPost(clientSecret);
      this.config = await lib.discovery(url, clientId, { redirect_uris: [this.settings.redirectUri], response_types: ['code'] }, auth, { execute, timeout: 10 });
    }
    return { lib, config: this.config };
  }

  /** Where to send the browser, and what to keep until it comes back. */
  async start(): Promise<{ url: string; pending: PendingSignIn }> {
    const { lib, config } = await this.ready();
    const pending = { state: lib.randomState(), nonce: lib.randomNonce(), codeVerifier: lib.randomPKCECodeVerifier() };
    const url = lib.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: this.settings.scopes,
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await lib.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  /** The claims of the verified ID token for the provider's answer (the callback's query); throws when any check fails. */
  async finish(query: string, pending: PendingSignIn): Promise<IdClaims> {
    const { lib, config } = await this.ready();
    const tokens = await lib.authorizationCodeGrant(config, new URL(`${this.settings.redirectUri}?${query}`), {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the provider sent no ID token');
    return claims as IdClaims;
  }

  /** The provider's sign-out (RP-initiated logout) that comes back to the page, or null when it offers none. */
  async endSessionUrl(): Promise<string | null> {
    const { lib, config } = await this.ready();
    if (!config.serverMetadata().end_session_endpoint) return null;
    return lib.buildEndSessionUrl(config, { client_id: this.settings.clientId, post_logout_redirect_uri: this.settings.postLogoutRedirectUri }).href;
  }
}
