// What the peer forms (add, edit) share: the checks the page can make before sending, and
// the words beside the limit and the expiry.
import { email, future, ipv4Address, ipv6Address, problems, wireGuardKey } from '../checks';
import { isTenthsLimit, limitValue } from '../format';
import { t } from '../i18n';

export const limitLabel = () => t('peerf.limit');
export const limitHint = () => t('peerf.limitHint', { bytes: 1_073_741_824 });
export const expiryHint = () => t('peerf.expiryHint');
/** On an existing peer, below admin: an expiry is a deletion, which only an admin may schedule or bring nearer. */
export const expiryHintOperator = () => `${expiryHint()} ${t('peerf.expiryOperator')}`;

interface PeerValues { name: string; email: string; ip: string; ip6: string; dataLimitGiB: string; expiresAt: string; publicKey?: string }

/** `expiryShown`: the expiry the form opened with; left as it was, it is not checked again. */
export function checkPeer(v: PeerValues, expiryShown = ''): Record<string, string> {
  return problems({
    name: !v.name.trim() && t('peerf.blankName'),
    email: v.email.trim() && email(v.email),
    ip: v.ip.trim() && ipv4Address(v.ip),
    ip6: v.ip6.trim() && ipv6Address(v.ip6),
    dataLimitGiB: (() => { const n = limitValue(v.dataLimitGiB); return typeof n === 'number' && isTenthsLimit(n) ? '' : t('check.tenths'); })(),
    expiresAt: v.expiresAt && v.expiresAt !== expiryShown && future(v.expiresAt),
    publicKey: v.publicKey?.trim() && wireGuardKey(v.publicKey),
  });
}
