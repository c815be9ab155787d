// What the page can tell is wrong with a field before sending it: each check gives the
// words that follow the field's label ("must be …"), or '' when the text is fine. wgcpd
// checks everything again; these only let a form show all its problems at once.

export function wholeNumber(text: string | boolean, min: number, max: number): string {
  const s = String(text).trim();
  if (!/^-?\d+$/.test(s)) return 'must be a whole number';
  const n = Number(s);
  return n < min || n > max ? `must be between ${min} and ${max}` : '';
}

const ipv4 = (s: string) => /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s) && s.split('.').every((p) => Number(p) <= 255);
// Loose: hex groups and colons, at most one "::", at most 8 groups. wgcpd parses it exactly.
const ipv6 = (s: string) => /^[0-9a-fA-F:]+$/.test(s) && s.includes(':') && s.split('::').length <= 2 && s.split(':').length <= 9
  && s.split(':').every((g) => g.length <= 4);

export function ipv4Address(text: string): string {
  return ipv4(text.trim().replace(/\/32$/, '')) ? '' : 'must be an IPv4 address such as 10.8.0.2';
}

export function ipv6Address(text: string): string {
  return ipv6(text.trim().replace(/\/128$/, '')) ? '' : 'must be an IPv6 address such as fd12:3456:789a:1::2';
}

export function cidr4(text: string): string {
  const [addr, prefix, extra] = text.trim().split('/');
  return extra === undefined && ipv4(addr) && /^\d{1,2}$/.test(prefix ?? '') && Number(prefix) <= 32 ? '' : 'must be an address with its prefix, such as 10.8.0.1/24';
}

export function cidr6(text: string): string {
  const [addr, prefix, extra] = text.trim().split('/');
  return extra === undefined && ipv6(addr) && /^\d{1,3}$/.test(prefix ?? '') && Number(prefix) <= 128 ? '' : 'must be an IPv6 address with its prefix, such as fd12:3456:789a:1::1/64';
}

export function endpoint(text: string): string {
  const m = /^(.+):(\d{1,5})$/.exec(text.trim());
  return m && !/\s/.test(m[1]) && Number(m[2]) >= 1 && Number(m[2]) <= 65535 ? '' : 'must be host:port, such as vpn.example.com:51820';
}

export function email(text: string): string {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim()) ? '' : 'must be an e-mail address';
}

export function wireGuardKey(text: string): string {
  return /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(text.trim()) ? '' : 'must be a WireGuard public key (44 characters of base64)';
}

/** A datetime-local value in the future (an expiry in the past would delete the peer at once). */
export function future(localValue: string, nowMs = Date.now()): string {
  const t = new Date(localValue).getTime();
  if (Number.isNaN(t)) return 'must be a date and time';
  return t <= nowMs ? 'must be in the future: a peer is deleted when its expiry passes' : '';
}

/** The problems of a form: each named check that found something. */
export function problems(found: Record<string, string | false | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(found).filter((e): e is [string, string] => Boolean(e[1])));
}
