// Registration tokens: an admin makes one for a server (a UUIDv4, single use, valid 24 h),
// lists a server's tokens with their state, and revokes one by its value.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import { createRegToken, revokeRegToken } from '../ops/regtokens';
import { presentRegToken } from '../views/devices-present';
import { serverFromPath } from './lookups';

export function regTokenRoutes(app: App): Route[] {
  const { store } = app;
  return [
    {
      method: 'GET', path: '/api/servers/:id/tokens', auth: 'control', role: 'operator',
      doc: () => ({ summary: 'List registration tokens of a server', answers: { 200: { description: 'tokens', shape: ['RegistrationToken'] } }, errors: [404] }),
      handler(ctx) {
        const server = serverFromPath(app, ctx.params.id);
        const now = app.now().toISOString();
        return ok(store.regTokens.listByServer(server.id).map((t) => presentRegToken(t, now, t.deviceId === null ? undefined : store.devices.get(t.deviceId))));
      },
    },
    {
      method: 'POST', path: '/api/servers/:id/tokens', auth: 'control', role: 'operator',
      doc: () => ({ summary: 'Make a registration token (UUIDv4, single use, valid 24 h); no body needed', answers: { 201: { description: 'created', shape: 'RegistrationToken' } }, errors: [404] }),
      // The request needs no body: a token is fully described by its server.
      async handler(ctx) {
        const server = serverFromPath(app, ctx.params.id);
        const now = app.now();
        const token = await createRegToken(app.runner, server.id, now, { actor: ctx.actor });
        app.log.info('registration token created', { serverId: server.id, expiresAt: token.expiresAt });
        return created(presentRegToken(token, now.toISOString(), undefined));
      },
    },
    {
      method: 'DELETE', path: '/api/tokens/:token', auth: 'control', role: 'operator',
      doc: () => ({ summary: 'Revoke a registration token', params: { token: { schema: { type: 'string', format: 'uuid' } } }, answers: { 204: { description: 'revoked' } }, errors: [404] }),
      async handler(ctx) {
        const value = ctx.params.token;
        if (!await revokeRegToken(app.runner, value, { actor: ctx.actor })) throw apiError('WGCP_REGTOKEN_NOT_FOUND');
        return noContent();
      },
    },
  ];
}
