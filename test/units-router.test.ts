import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findRoute, type Route } from '../src/http/router';
import { ok } from '../src/http/reply';
import { splitTarget } from '../src/http/server';

const t = suite('router');
const h = () => ok(null);
const routes: Route[] = [
  { method: 'GET', path: '/api/servers', auth: 'control', role: 'viewer', handler: h },
  { method: 'POST', path: '/api/servers', auth: 'control', role: 'viewer', handler: h },
  { method: 'GET', path: '/api/servers/:id', auth: 'control', role: 'viewer', handler: h },
  { method: 'GET', path: '/api/servers/:id/peers', auth: 'control', role: 'viewer', handler: h },
];

t('matches literal and parameter segments', () => {
  const m = findRoute(routes, 'GET', '/api/servers/42/peers');
  assert.is(m.route.path, '/api/servers/:id/peers');
  assert.equal(m.params, { id: '42' });
  assert.is(findRoute(routes, 'POST', '/api/servers/').route.method, 'POST');
});

t('decodes percent-escapes in parameters', () => {
  assert.equal(findRoute(routes, 'GET', '/api/servers/a%20b').params, { id: 'a b' });
});

t('answers HEAD with the GET route', () => {
  assert.is(findRoute(routes, 'HEAD', '/api/servers').route.method, 'GET');
});

t('throws 404 for unknown paths and bad escapes, 405 with Allow for other methods', () => {
  assert.throws(() => findRoute(routes, 'GET', '/api/nope'), (e: { status: number }) => e.status === 404);
  assert.throws(() => findRoute(routes, 'GET', '/api/servers/%E0%A4%A'), (e: { status: number }) => e.status === 404);
  assert.throws(() => findRoute(routes, 'DELETE', '/api/servers'), (e: { status: number; headers: Record<string, string> }) => e.status === 405 && e.headers.Allow === 'GET, POST');
});

t('splits a request target into path and query', () => {
  const { pathname, query } = splitTarget('/api/servers/1/peers?limit=2&offset=4');
  assert.is(pathname, '/api/servers/1/peers');
  assert.is(query.get('limit'), '2');
  assert.is(query.get('offset'), '4');
  assert.is(splitTarget('/healthz').pathname, '/healthz');
});

t('a literal path found by its map entry gives what the segment walk gives, earlier routes first', () => {
  const shadowing: Route[] = [
    { method: 'POST', path: '/api/v1/:name', auth: 'none', handler: h },
    { method: 'POST', path: '/api/v1/heartbeat', auth: 'none', handler: h },
    { method: 'GET', path: '/api/v1/heartbeat', auth: 'none', handler: h },
  ];
  const exact = findRoute(shadowing, 'POST', '/api/v1/heartbeat');
  assert.is(exact.route, shadowing[0], 'the earlier parameter route wins, as in the walk');
  assert.equal(exact.params, { name: 'heartbeat' });
  assert.equal(findRoute(shadowing, 'POST', '/api/v1/heartbeat/'), exact, 'the walk agrees');
  assert.is(findRoute(shadowing, 'HEAD', '/api/v1/heartbeat').route, shadowing[2]);
  const literal = findRoute(routes, 'GET', '/api/servers');
  literal.params.x = 'changed';
  assert.equal(findRoute(routes, 'GET', '/api/servers').params, {}, 'a handler cannot change the next request\'s params');
  assert.throws(() => findRoute(routes, 'DELETE', '/api/servers'), (e: { status: number }) => e.status === 405);
});

t.run();
