// What the page can tell is wrong with a field before sending it: each check gives the
// words that follow the field's label ("must be …"), or '' when the text is fine. wgcpd
// checks everything again; these only let a form show all its problems at once.
import { t } from './i18n';

export function wholeNumber(text: string | boolean, min: number, max: number): string {
  const s = String(text).trim();
  if (!/^-?\d+$/.test(s)) return t('check.whole');
  const n = Number(s);
  return n < min || n > max ? t('check.between', { min: String(min), max: String(max) }) : '';
}

const ipv4 = (s: string) => /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s) && s.split('.').every((p) => Number(p) <= 255);
// Loose: hex groups and colons, at most one "::", at most 8 groups. wgcpd parses it exactly.
const ipv6 = (s: string) => /^[0-9a-fA-F:]+$/.test(s) && s.includes(':') && s.split('::').length <= 2 && s.split(':').length <= 9
  && s.split(':').every((g) => g.length <= 4);

export function ipv4Address(text: string): string {
  return ipv4(text.trim().replace(/\/32$/, '')) ? '' : t('check.ipv4');
}

export function ipv6Address(text: string): string {
  return ipv6(text.trim().replace(/\/128$/, '')) ? '' : t('check.ipv6');
}

export function cidr4(text: string): string {
  const [addr, prefix, extra] = text.trim().split('/');
  return extra === undefined && ipv4(addr) && /^\d{1,2}$/.test(prefix ?? '') && Number(prefix) <= 32 ? '' : t('check.cidr4');
}

export function cidr6(text: string): string {
  const [addr, prefix, extra] = text.trim().split('/');
  return extra === undefined && ipv6(addr) && /^\d{1,3}$/.test(prefix ?? '') && Number(prefix) <= 128 ? '' : t('check.cidr6');
}

/** The items of a list typed with commas between them ("10.9.0.0/24, fd00:9::/64"). */
export const listOf = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s !== '');

const prefix = (s: string) => !cidr4(s) || !cidr6(s);
const address = (s: string) => ipv4(s) || ipv6(s);

/** Prefixes separated by commas, at most `max`; the first that is not one is named. */
export function prefixList(text: string, max = 64): string {
  const items = listOf(text);
  const bad = items.find((s) => !prefix(s));
  if (bad !== undefined) return t('check.prefixes', { bad });
  return items.length > max ? t('check.atMost', { max: String(max) }) : '';
}

/** A client's DNS: "none", or IP addresses separated by commas, at most 8. */
export function dnsList(text: string): string {
  if (text.trim().toLowerCase() === 'none') return '';
  const items = listOf(text);
  const bad = items.find((s) => !address(s));
  if (bad !== undefined) return t('check.addresses', { bad });
  return items.length > 8 ? t('check.atMost', { max: '8' }) : '';
}

/** One of `words` as typed, or prefixes; `wrong` says so and names the first item that is neither. */
function wordOrPrefixes(text: string, words: string[], wrong: 'check.routes' | 'check.reach'): string {
  const v = text.trim();
  if (words.includes(v.toLowerCase())) return '';
  const bad = listOf(v).find((s) => !prefix(s));
  return bad === undefined ? prefixList(v) : t(wrong, { bad });
}

/** What a client routes into the tunnel: "full", "split" or prefixes. */
export const routeList = (text: string): string => wordOrPrefixes(text, ['full', 'split'], 'check.routes');

/** Which of the router's networks: "lan" for all, or prefixes. */
export const reachList = (text: string): string => wordOrPrefixes(text, ['lan'], 'check.reach');

export function endpoint(text: string): string {
  const m = /^(.+):(\d{1,5})$/.exec(text.trim());
  return m && !/\s/.test(m[1]) && Number(m[2]) >= 1 && Number(m[2]) <= 65535 ? '' : t('check.endpoint');
}

export function email(text: string): string {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim()) ? '' : t('check.email');
}

export function wireGuardKey(text: string): string {
  return /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(text.trim()) ? '' : t('check.key');
}

/** A datetime-local value in the future (an expiry in the past would delete the peer at once). */
export function future(localValue: string, nowMs = Date.now()): string {
  const at = new Date(localValue).getTime();
  if (Number.isNaN(at)) return t('check.date');
  return at <= nowMs ? t('check.future') : '';
}

/** The problems of a form: each named check that found something. */
export function problems(found: Record<string, string | false | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(found).filter((e): e is [string, string] => Boolean(e[1])));
}
