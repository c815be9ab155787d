// The coded error registry: every error the daemon answers with has a stable code, a valid
// status and a template whose holes its raise sites fill; the one place that makes bodies
// gives every body a code, registered or generic by status.
import fs from 'node:fs';
import { STATUS_CODES } from 'node:http';
import path from 'node:path';
import createError from 'http-errors';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ERRORS, apiError, fieldError, fillTemplate, genericCode, type ErrorCode } from '../src/error-registry';
import { errorToBody } from '../src/http/errors';

const t = suite('error registry: one code, one status, one template an error');
const codes = Object.keys(ERRORS) as ErrorCode[];
const SRC = path.join(__dirname, '../../src');

t('every code is WGCP_ and upper snake case, and none looks like a generic status code', () => {
  for (const code of codes) {
    assert.match(code, /^WGCP_[A-Z0-9]+(_[A-Z0-9]+)*$/, code);
    assert.not.match(code, /^WGCP_HTTP_\d+$/, code);
  }
});

t('every code is unique, and so is every message template', () => {
  assert.is(new Set(codes).size, codes.length);
  const templates = codes.map((c) => ERRORS[c].message);
  assert.equal(templates.filter((m, i) => templates.indexOf(m) !== i), [], 'two codes share a text: one of them is not needed');
});

t('every status is a client or server error that HTTP names', () => {
  for (const code of codes) {
    const { status } = ERRORS[code];
    assert.ok(status >= 400 && status <= 599 && STATUS_CODES[status] !== undefined, `${code}: ${status}`);
  }
});

t('every template is filled by its parameters, leaving no hole', () => {
  for (const code of codes) {
    const holes = [...ERRORS[code].message.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const params = Object.fromEntries(holes.map((h) => [h, `<${h}>`]));
    const text = fillTemplate(ERRORS[code].message, params);
    assert.not.match(text, /\{\w+\}/, code);
    for (const h of holes) assert.ok(text.includes(`<${h}>`), `${code} shows ${h}`);
  }
});

t('a raise site that forgets a parameter is a defect: it throws naming the parameter', () => {
  assert.throws(() => fillTemplate(ERRORS.WGCP_BODY_TOO_LARGE.message, {}), /needs the parameter limit/);
});

t('an error raised by code carries its status from the registry and becomes a body with its code', () => {
  const err = apiError('WGCP_BODY_TOO_LARGE', { limit: 4096 }, { headers: { Connection: 'close' } });
  assert.is(err.status, 413);
  assert.equal(errorToBody(err), { status: 413, body: { error: 'request body is larger than 4096 bytes', code: 'WGCP_BODY_TOO_LARGE' }, headers: { Connection: 'close' } });
  assert.equal(errorToBody(apiError('WGCP_FORBIDDEN_ROLE', { role: 'admin' }, { role: 'admin' })).body, { error: 'forbidden: needs role admin', code: 'WGCP_FORBIDDEN_ROLE', role: 'admin' });
});

t('a field error is 400 and names the field in the body', () => {
  assert.equal(errorToBody(fieldError('mtu', 'must be a whole number from 1280 to 9000')), {
    status: 400, body: { error: 'mtu must be a whole number from 1280 to 9000', code: 'WGCP_FIELD_INVALID', field: 'mtu' }, headers: {},
  });
});

t('a server-side error raised by code keeps its text and code', () => {
  assert.equal(errorToBody(apiError('WGCP_KERNEL_FAILED', { reason: 'nft: No such file or directory' })).body, { error: 'nft: No such file or directory', code: 'WGCP_KERNEL_FAILED' });
});

t('an HTTP error raised without a code gets the generic code of its status', () => {
  assert.equal(errorToBody(createError(418, 'short and stout')).body, { error: 'short and stout', code: genericCode(418) });
  assert.is(genericCode(418), 'WGCP_HTTP_418');
  assert.equal(errorToBody(Object.assign(createError(400, 'odd'), { code: 'ENOENT' })).body, { error: 'odd', code: 'WGCP_HTTP_400' }, 'a code not in the registry is not passed on');
});

t('anything unexpected is a generic 500 with its code, and its words stay in the log', () => {
  assert.equal(errorToBody(new Error('disk on fire')), { status: 500, body: { error: 'internal server error', code: 'WGCP_INTERNAL' }, headers: {} });
});

t('the device API contract texts are the registry\'s, byte for byte', () => {
  const contract: Array<[ErrorCode, number, string]> = [
    ['WGCP_DEVICE_TOKEN_FORMAT', 400, 'invalid token format'], ['WGCP_DEVICE_TOKEN_USED', 400, 'token already used'],
    ['WGCP_DEVICE_HARDWARE_ID', 400, 'invalid hardware id'], ['WGCP_DEVICE_TOKEN_EXPIRED', 403, 'token expired'],
    ['WGCP_PROVISIONING_FAILED', 500, 'provisioning failed'], ['WGCP_DEVICE_ID_INVALID', 400, 'invalid device id'],
    ['WGCP_DEVICE_SUSPENDED', 403, 'device is suspended'], ['WGCP_HEARTBEAT_FAILED', 500, 'heartbeat failed'],
  ];
  for (const [code, status, text] of contract) assert.equal([ERRORS[code].status, ERRORS[code].message], [status, text], code);
});

t('errors are raised by code: no module of src/ calls createError but the registry (and the CLI, which relays an answer)', () => {
  const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
  const raising = files(SRC).filter((f) => /\bcreateError\(/.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(SRC, f));
  assert.equal(raising.sort(), ['cli/import.ts', 'error-registry.ts']);
});

t.run();
