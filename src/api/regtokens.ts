// Registration tokens: an admin makes one for a server (a UUIDv4, single use, valid 24 h),
// lists a server's tokens with their state, and revokes one by its value.
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import type { RegTokenRecord } from '../store/regtokens';
import type { Store } from '../store/store';
import { isUuid, newUuid } from '../device/identifiers';
import { presentRegToken } from './devices-present';
import { findServer } from './servers';

export const REG_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Shared by the API and `wgcp regtoken create`. */
export function createRegToken(store: Store, serverId: number, now: Date): RegTokenRecord {
  return store.regTokens.insert({
    token: newUuid(),
    serverId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + REG_TOKEN_LIFETIME_MS).toISOString(),
  });
}

export function regTokenRoutes(app: App): Route[] {
  const { store } = app;
  return [
    {
      method: 'GET', path: '/api/servers/:id/tokens', auth: 'control',
      handler(ctx) {
        const server = findServer(app, ctx.params.id);
        const now = app.now().toISOString();
        return ok(store.regTokens.listByServer(server.id).map((t) => presentRegToken(t, now)));
      },
    },
    {
      method: 'POST', path: '/api/servers/:id/tokens', auth: 'control',
      // The request needs no body: a token is fully described by its server.
      handler(ctx) {
        const server = findServer(app, ctx.params.id);
        const now = app.now();
        const token = createRegToken(store, server.id, now);
        app.log.info('registration token created', { serverId: server.id, expiresAt: token.expiresAt });
        return created(presentRegToken(token, now.toISOString()));
      },
    },
    {
      method: 'DELETE', path: '/api/tokens/:token', auth: 'control',
      handler(ctx) {
        const value = ctx.params.token;
        if (!isUuid(value) || !store.regTokens.delete(value.toLowerCase())) throw createError(404, 'token not found');
        return noContent();
      },
    },
  ];
}
