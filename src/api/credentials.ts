// /api/apikeys and /api/access-tokens: the credentials of the control plane, for the page's
// panel (the CLI has the same). A new secret is in the 201 answer only; lists never hold one.
import { apiError, fieldError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import type { CredentialKind } from '../store/credentials';
import { createCredential, listCredentials, revokeCredential } from '../ops/credentials';
import { parseInput, present } from '../resources/describe';
import { CREDENTIAL, type CredentialRecord } from '../resources/credential';
import { setCredentialRole } from '../ops/credential-roles';
import { ROLES, type Role } from '../store/roles';
import { NOT_FOUND, oneOf, parseId, required } from './fields';
import { optionalBody } from './optional-body';

/** Every route of a credential is an admin's: the admin's sight, which still never holds the hash. */
const presentCredential = (c: CredentialRecord) => present(CREDENTIAL, c, 'admin');

const LAST_ADMIN: [number, string] = [409, 'it is the last live admin key or token: the change would leave no admin'];

function credentialRoutes(app: App, kind: CredentialKind, base: string, secretField: 'key' | 'token'): Route[] {
  const one = kind === 'apikey' ? 'API key' : 'access token';
  return [
    {
      method: 'GET', path: base, auth: 'control', role: 'admin',
      doc: () => ({ summary: `List ${one}s (never their secrets)`, answers: { 200: { description: `${one}s by id`, shape: ['Credential'] } } }),
      handler: () => ok(listCredentials(app.store, kind).map(presentCredential)),
    },
    {
      method: 'POST', path: base, auth: 'control', role: 'admin',
      doc: () => ({
        summary: `Make an ${one}; the answer holds it once, as \`${secretField}\``, body: 'Credential', bodyOptional: true,
        answers: { 201: { description: 'made', shape: { allOf: [{ $ref: '#/components/schemas/Credential' }, { type: 'object', properties: { [secretField]: { type: 'string', description: `the ${one}, shown only here` } } }] } } },
        errors: [400, 413],
      }),
      async handler(ctx) {
        const body = await optionalBody(ctx);
        const now = app.now();
        if (kind === 'apikey' && body.expiresInDays !== undefined) throw fieldError('expiresInDays', 'is for access tokens');
        const input = parseInput(CREDENTIAL, body, { now });
        const name = input.name ?? `${kind}-${now.toISOString()}`;
        const role = input.role ?? 'admin';
        const { secret, ...info } = await createCredential(app.runner, kind, name, now, input.expiresInDays ?? null, role, { actor: ctx.actor });
        app.log.info(`${kind === 'apikey' ? 'API key' : 'access token'} created`, { id: info.id, name: info.name, role });
        return created({ ...presentCredential(info), [secretField]: secret });
      },
    },
    {
      // Only the role changes: a key's secret and name stay as they were made.
      method: 'PUT', path: `${base}/:id`, auth: 'control', role: 'admin',
      doc: () => ({ summary: `Change the role of an ${one} (its sessions follow at once)`, body: 'RoleChange', answers: { 200: { description: 'changed', shape: 'Credential' } }, errors: [400, 404, LAST_ADMIN] }),
      async handler(ctx) {
        const what = kind === 'apikey' ? 'API key' as const : 'access token' as const;
        const id = parseId(ctx.params.id, what);
        const role = required(oneOf<Role>(await ctx.body(), 'role', ROLES), 'role');
        const changed = await setCredentialRole(app.runner, ctx.actor!, kind, id, role, app.now());
        if (changed === null) throw apiError(NOT_FOUND[what]);
        app.log.info(`${what} role changed`, { id, role });
        return ok(presentCredential(changed));
      },
    },
    {
      method: 'DELETE', path: `${base}/:id`, auth: 'control', role: 'admin',
      doc: () => ({ summary: `Revoke an ${one} (its sessions end with it)`, answers: { 204: { description: 'revoked' } }, errors: [404, LAST_ADMIN] }),
      async handler(ctx) {
        const what = kind === 'apikey' ? 'API key' as const : 'access token' as const;
        if (!await revokeCredential(app.runner, kind, parseId(ctx.params.id, what), app.now(), { actor: ctx.actor })) throw apiError(NOT_FOUND[what]);
        app.log.info(`${what} revoked`, { id: Number(ctx.params.id) });
        return noContent();
      },
    },
  ];
}

export function credentialsRoutes(app: App): Route[] {
  return [...credentialRoutes(app, 'apikey', '/api/apikeys', 'key'), ...credentialRoutes(app, 'token', '/api/access-tokens', 'token')];
}
