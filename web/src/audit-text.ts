// An audit entry as a sentence an owner reads ("set data limit 5 GiB -> 10 GiB"): the
// action in words, then each field it changed, from what it was (the daemon records `was`
// beside an update's new values) to what it became. The raw fields stay one click away.
import { formatGiB } from './format';

const ACTIONS: Record<string, string> = {
  'peer.create': 'added peer', 'peer.update': 'changed peer', 'peer.delete': 'deleted peer', 'peer.expire': 'peer expired',
  'server.create': 'added server', 'server.update': 'changed server', 'server.delete': 'deleted server', 'server.import': 'imported server',
  'share.create': 'made a share link for peer', 'share.revoke': 'revoked a share link of peer', 'share.use': 'share link used for peer',
  'apikey.create': 'made API key', 'apikey.revoke': 'revoked API key', 'apikey.role': 'changed the role of API key',
  'token.create': 'made access token', 'token.revoke': 'revoked access token', 'token.role': 'changed the role of access token',
  'session.sign-in': 'signed in', 'session.sign-in-failed': 'failed to sign in',
  'totp.enable': 'turned on two-factor sign-in', 'totp.disable': 'turned off two-factor sign-in', 'totp.reset': 'reset two-factor sign-in',
  'regtoken.create': 'made a registration token for server', 'regtoken.revoke': 'revoked a registration token of server',
  'device.provision': 'enrolled device', 'device.delete': 'removed device', 'forward.add': 'added a port forward', 'forward.remove': 'removed a port forward',
  'webhook.create': 'added webhook', 'webhook.update': 'changed webhook', 'webhook.delete': 'deleted webhook',
  'smtp.save': 'saved the mail settings', 'backup.restore': 'restored a backup', 'kernel.repair': 'repaired the kernel state', 'audit.prune': 'pruned the audit log',
};

const FIELDS: Record<string, string> = {
  name: 'name', email: 'e-mail', ip: 'address', ip6: 'IPv6 address', publicKey: 'public key', allowAccess: 'may reach',
  allowInternet: 'internet access', enabled: 'switch', dataLimitGB: 'data limit', expiresAt: 'expiry', schedule: 'schedule',
  downloadLimitMbps: 'download limit', uploadLimitMbps: 'upload limit', endpoint: 'endpoint', mode: 'mode', interface: 'interface',
  address: 'address', address6: 'IPv6 prefix', listenPort: 'port', dns: 'DNS', mtu: 'MTU', role: 'role', from: 'role was', to: 'role',
};

function valueText(field: string, v: unknown): string {
  if (v === null || v === undefined || v === '') return field === 'dataLimitGB' ? 'no limit' : 'none';
  if (field === 'dataLimitGB' && typeof v === 'number') return v === 0 ? 'no limit' : formatGiB(v);
  if ((field === 'downloadLimitMbps' || field === 'uploadLimitMbps') && typeof v === 'number') return `${v} Mbit/s`;
  if (typeof v === 'boolean') return field === 'enabled' ? (v ? 'on' : 'off') : v ? 'yes' : 'no';
  if (field === 'expiresAt' && typeof v === 'string') return new Date(v).toLocaleString();
  if (Array.isArray(v)) return v.length ? v.join(', ') : 'none';
  if (typeof v === 'object') return field === 'schedule' ? 'a schedule' : JSON.stringify(v);
  return String(v);
}

/** What changed, one phrase a field: "data limit 5 GiB -> 10 GiB" (or "name alice" without a before). */
export function changes(summary: Record<string, unknown>): string[] {
  const was = (summary.was ?? null) as Record<string, unknown> | null;
  return Object.entries(summary).filter(([k]) => k !== 'was' && k !== 'serverID' && k !== 'from' && k !== 'to').map(([k, v]) => {
    const label = FIELDS[k] ?? k;
    return was && k in was ? `${label} ${valueText(k, was[k])} -> ${valueText(k, v)}` : `${label} ${valueText(k, v)}`;
  });
}

/** The entry as one line: "set data limit 5 GiB -> 10 GiB on peer 3". */
export function auditSentence(action: string, targetType: string, targetId: string | null, summary: Record<string, unknown>): string {
  const verb = ACTIONS[action] ?? action.replace('.', ' ');
  const target = targetId !== null && verb.endsWith(targetType) ? ` ${targetId}` : '';
  const role = summary.from !== undefined && summary.to !== undefined ? `: ${summary.from} -> ${summary.to}` : '';
  if (action.endsWith('.update')) {
    const list = changes(summary);
    return `${verb}${target}${list.length ? `: set ${list.join('; ')}` : ''}`;
  }
  const name = typeof summary.name === 'string' && summary.name ? ` “${summary.name}”` : '';
  return `${verb}${target}${name}${role}`;
}
