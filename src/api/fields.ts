// Reading typed fields out of a request body. Every refusal is a 400 that names the field.
import { apiError, type ErrorCode } from '../error-registry';
import { badField } from '../ops/field-error';
import { HOSTNAME } from '../wg/hostname';

export { badField };

export type { Body } from '../resources/describe';
export { readString, readName, readBool, readInt, readIntArray, required, oneOf, readTimestamp } from '../resources/read';

/** The 404 of each resource a path names by id. */
export const NOT_FOUND = {
  server: 'WGCP_SERVER_NOT_FOUND', peer: 'WGCP_PEER_NOT_FOUND', device: 'WGCP_DEVICE_NOT_FOUND', webhook: 'WGCP_WEBHOOK_NOT_FOUND',
  forward: 'WGCP_FORWARD_NOT_FOUND', 'share link': 'WGCP_SHARE_NOT_FOUND', 'API key': 'WGCP_API_KEY_NOT_FOUND', 'access token': 'WGCP_ACCESS_TOKEN_NOT_FOUND',
  'site link': 'WGCP_SITE_LINK_NOT_FOUND',
  passkey: 'WGCP_PASSKEY_NOT_FOUND',
} as const satisfies Record<string, ErrorCode>;

/** Parses a path id: a positive integer, or the resource is simply not there (404). */
export function parseId(text: string, what: keyof typeof NOT_FOUND): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) throw apiError(NOT_FOUND[what]);
  return Number(text);
}

export { HOSTNAME };
export { EMAIL } from '../ops/value-rules';
