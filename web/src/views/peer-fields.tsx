// What the peer forms (add, edit) share: the checks the page can make before sending, and
// the words beside the limit and the expiry.
import { email, future, ipv4Address, ipv6Address, problems, wholeNumber, wireGuardKey } from '../checks';

export const LIMIT_LABEL = 'Monthly data limit (GiB)';
export const LIMIT_HINT = '1 GiB is 1,073,741,824 bytes. 0 means no limit.';
export const EXPIRY_HINT = 'When this time passes, the peer and its keys are deleted (not only switched off). Empty: never.';
/** On an existing peer, below admin: an expiry is a deletion, which only an admin may schedule or bring nearer. */
export const EXPIRY_HINT_OPERATOR = `${EXPIRY_HINT} Only an admin may set one or make it sooner; you may postpone or clear it.`;

interface PeerValues { name: string; email: string; ip: string; ip6: string; dataLimitGB: string; expiresAt: string; publicKey?: string }

/** `expiryShown`: the expiry the form opened with; left as it was, it is not checked again. */
export function checkPeer(v: PeerValues, expiryShown = ''): Record<string, string> {
  return problems({
    email: v.email.trim() && email(v.email),
    ip: v.ip.trim() && ipv4Address(v.ip),
    ip6: v.ip6.trim() && ipv6Address(v.ip6),
    dataLimitGB: wholeNumber(v.dataLimitGB || '0', 0, 8_388_607),
    expiresAt: v.expiresAt && v.expiresAt !== expiryShown && future(v.expiresAt),
    publicKey: v.publicKey?.trim() && wireGuardKey(v.publicKey),
  });
}
