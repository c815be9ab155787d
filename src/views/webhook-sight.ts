// What a role sees of a webhook. Its URL often is the credential (Slack's and Discord's
// carry their token in the path) and its headers often carry one (`Authorization`,
// `X-Api-Key`); its body templates may hold one too. Only the role that may change a
// webhook (admin) sees it whole; every other role, wherever a webhook is shown (its routes,
// a server with its webhooks), sees the URL's scheme and host, the header names, and masks.
import type { Role } from '../store/roles';
import { roleAllows } from '../store/roles';
import type { WebhookRecord } from '../store/webhooks';

export const MASK = '********';

/** The least role that sees a webhook's URL, headers and templates whole: the one that may change them. */
export const WEBHOOK_WHOLE_ROLE: Role = 'admin';

/** `whole`: as stored; `outline`: scheme and host, header names, masks. */
export type WebhookSight = 'whole' | 'outline';

/** A missing role (not a signed-in caller) sees the outline: the rule fails closed. */
export const webhookSight = (role: Role | null | undefined): WebhookSight =>
  role != null && roleAllows(role, WEBHOOK_WHOLE_ROLE) ? 'whole' : 'outline';

/** `https://hooks.slack.com/********`: the scheme and host (never user:password@), the rest masked. */
export function outlineUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/${MASK}`;
  } catch {
    return MASK;
  }
}

/** The stored JSON object of header names to values with every value masked (names kept). */
export function outlineHeaders(json: string): string {
  if (json.trim() === '') return '';
  try {
    const parsed = JSON.parse(json) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return '';
    return JSON.stringify(Object.fromEntries(Object.keys(parsed).map((name) => [name, MASK])));
  } catch {
    return '';
  }
}

const maskUnlessEmpty = (text: string): string => (text === '' ? '' : MASK);

/** The record a role may see: as stored for `whole`, with its credentials masked for `outline`. */
export function webhookAsSeen(w: WebhookRecord, sight: WebhookSight): WebhookRecord {
  if (sight === 'whole') return w;
  return {
    ...w,
    url: outlineUrl(w.url),
    customHeaders: outlineHeaders(w.customHeaders),
    customBody: maskUnlessEmpty(w.customBody),
    defaultPayload: maskUnlessEmpty(w.defaultPayload),
    secret: maskUnlessEmpty(w.secret),
  };
}
