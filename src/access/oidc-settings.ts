// Single sign-on's settings from the environment (docs/access.md, "Single sign-on"). All
// of them or none: an issuer without a client id, secret or public URL is a start error,
// not a page that fails at the first sign-in.
import fs from 'node:fs';
import { parseRoleMapping, RoleMappingError, type RoleRule } from './oidc-roles';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** Read from WGCP_OIDC_CLIENT_SECRET_FILE at start; null: a public client (PKCE only). */
  clientSecret: string | null;
  /** `<WGCP_PUBLIC_URL>/api/oidc/callback`: the URL to register at the provider. */
  redirectUri: string;
  /** Where the provider sends the browser back after signing out there. */
  postLogoutRedirectUri: string;
  scopes: string;
  roles: RoleRule[];
}

export class OidcSettingsError extends Error {}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** An https issuer; http only on loopback (a provider on the router itself, or a test's). */
function parseIssuer(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OidcSettingsError(`WGCP_OIDC_ISSUER must be the provider's issuer URL such as https://id.example.com/realms/office, got "${value}"`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw new OidcSettingsError(`WGCP_OIDC_ISSUER must be an https:// URL (http:// only on loopback), got "${value}"`);
  }
  return value;
}

function readSecret(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new OidcSettingsError(`WGCP_OIDC_CLIENT_SECRET_FILE cannot be read: ${(err as Error).message}`);
  }
  const secret = text.trim();
  if (secret === '') throw new OidcSettingsError(`WGCP_OIDC_CLIENT_SECRET_FILE (${file}) is empty`);
  return secret;
}

/** The settings, or null when WGCP_OIDC_ISSUER is unset (single sign-on off). */
export function loadOidcSettings(get: (name: string) => string | null, publicUrl: string | null): OidcSettings | null {
  const issuer = get('WGCP_OIDC_ISSUER');
  if (issuer === null) {
    for (const name of ['WGCP_OIDC_CLIENT_ID', 'WGCP_OIDC_CLIENT_SECRET_FILE', 'WGCP_OIDC_ROLES']) {
      if (get(name) !== null) throw new OidcSettingsError(`${name} is set but WGCP_OIDC_ISSUER is not: set the issuer too, or unset ${name}`);
    }
    return null;
  }
  const clientId = get('WGCP_OIDC_CLIENT_ID');
  if (clientId === null) throw new OidcSettingsError('WGCP_OIDC_ISSUER needs WGCP_OIDC_CLIENT_ID (the client id registered at the provider)');
  if (publicUrl === null) throw new OidcSettingsError('WGCP_OIDC_ISSUER needs WGCP_PUBLIC_URL: the provider sends the browser back to <WGCP_PUBLIC_URL>/api/oidc/callback');
  const rolesText = get('WGCP_OIDC_ROLES');
  if (rolesText === null) throw new OidcSettingsError('WGCP_OIDC_ISSUER needs WGCP_OIDC_ROLES, for example admin=groups:wgcp-admins;viewer=email_domain:example.com');
  let roles: RoleRule[];
  try {
    roles = parseRoleMapping(rolesText);
  } catch (err) {
    if (err instanceof RoleMappingError) throw new OidcSettingsError(`WGCP_OIDC_ROLES: ${err.message}`);
    throw err;
  }
  const scopes = (get('WGCP_OIDC_SCOPES') ?? 'openid email profile').split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid')) scopes.unshift('openid');
  if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) throw new OidcSettingsError(`WGCP_OIDC_SCOPES must be scope names separated by spaces, got "${get('WGCP_OIDC_SCOPES')}"`);
  const secretFile = get('WGCP_OIDC_CLIENT_SECRET_FILE');
  return {
    issuer: parseIssuer(issuer),
    clientId,
    clientSecret: secretFile === null ? null : readSecret(secretFile),
    redirectUri: `${publicUrl}/api/oidc/callback`,
    postLogoutRedirectUri: `${publicUrl}/`,
    scopes: scopes.join(' '),
    roles,
  };
}
