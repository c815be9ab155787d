// An audit entry as a sentence an owner reads ("set data limit 5 GiB -> 10 GiB"): the
// action in words, then each field it changed, from what it was (the daemon records `was`
// beside an update's new values) to what it became. The raw fields stay one click away.
// Every word comes from the catalogues; an action or field this page does not know is
// shown as the API names it.
import { formatDate, formatGiB } from './format';
import { t } from './i18n';

/** The action in words, `{id}` where the target's id goes ("changed peer 3"). */
const actionWords = (action: string, id: string): string | undefined => {
  const v = { id };
  switch (action) {
    case 'peer.create': return t('audit.peerCreate', v);
    case 'peer.update': return t('audit.peerUpdate', v);
    case 'peer.delete': return t('audit.peerDelete', v);
    case 'peer.expire': return t('audit.peerExpire', v);
    case 'server.create': return t('audit.serverCreate', v);
    case 'server.update': return t('audit.serverUpdate', v);
    case 'server.delete': return t('audit.serverDelete', v);
    case 'server.import': return t('audit.serverImport', v);
    case 'share.create': return t('audit.shareCreate', v);
    case 'share.revoke': return t('audit.shareRevoke', v);
    case 'share.use': return t('audit.shareUse', v);
    case 'apikey.create': return t('audit.apikeyCreate', v);
    case 'apikey.revoke': return t('audit.apikeyRevoke', v);
    case 'apikey.role': return t('audit.apikeyRole', v);
    case 'token.create': return t('audit.tokenCreate', v);
    case 'token.revoke': return t('audit.tokenRevoke', v);
    case 'token.role': return t('audit.tokenRole', v);
    case 'session.sign-in': return t('audit.signIn');
    case 'session.sign-in-failed': return t('audit.signInFailed');
    case 'passkey.register': return t('audit.passkeyRegister', v);
    case 'passkey.rename': return t('audit.passkeyRename', v);
    case 'passkey.remove': return t('audit.passkeyRemove', v);
    case 'totp.enable': return t('audit.totpEnable');
    case 'totp.disable': return t('audit.totpDisable');
    case 'totp.reset': return t('audit.totpReset');
    case 'regtoken.create': return t('audit.regtokenCreate', v);
    case 'regtoken.revoke': return t('audit.regtokenRevoke', v);
    case 'device.provision': return t('audit.deviceProvision', v);
    case 'device.delete': return t('audit.deviceDelete', v);
    case 'forward.add': return t('audit.forwardAdd');
    case 'forward.remove': return t('audit.forwardRemove');
    case 'webhook.create': return t('audit.webhookCreate', v);
    case 'webhook.update': return t('audit.webhookUpdate', v);
    case 'webhook.delete': return t('audit.webhookDelete', v);
    case 'smtp.save': return t('audit.smtpSave');
    case 'backup.restore': return t('audit.backupRestore');
    case 'kernel.repair': return t('audit.kernelRepair');
    case 'audit.prune': return t('audit.prune');
    default: return undefined;
  }
};

const fieldWords = (field: string): string => ({
  name: t('audit.f.name'), email: t('audit.f.email'), ip: t('audit.f.ip'), ip6: t('audit.f.ip6'), publicKey: t('audit.f.publicKey'),
  allowAccess: t('audit.f.allowAccess'), allowInternet: t('audit.f.allowInternet'), enabled: t('audit.f.enabled'), dataLimitGB: t('audit.f.dataLimit'), dataLimitGiB: t('audit.f.dataLimit'),
  expiresAt: t('audit.f.expiresAt'), schedule: t('audit.f.schedule'), downloadLimitMbps: t('audit.f.download'), uploadLimitMbps: t('audit.f.upload'),
  endpoint: t('audit.f.endpoint'), mode: t('audit.f.mode'), interface: t('audit.f.interface'), address: t('audit.f.ip'), address6: t('audit.f.address6'),
  listenPort: t('audit.f.port'), dns: 'DNS', mtu: 'MTU', role: t('audit.f.role'), owner: t('audit.f.owner'), from: t('audit.f.roleWas'), to: t('audit.f.role'),
} as Record<string, string>)[field] ?? field;

function valueText(field: string, v: unknown): string {
  if (v === null || v === undefined || v === '') return field.startsWith('dataLimit') ? t('speed.noLimit') : t('speed.none');
  if (field.startsWith('dataLimit') && typeof v === 'number') return v === 0 ? t('speed.noLimit') : formatGiB(v);
  if ((field === 'downloadLimitMbps' || field === 'uploadLimitMbps') && typeof v === 'number') return t('speed.mbps', { n: v });
  if (typeof v === 'boolean') return field === 'enabled' ? (v ? t('audit.on') : t('audit.off')) : v ? t('audit.yes') : t('audit.no');
  if (field === 'expiresAt' && typeof v === 'string') return formatDate(v);
  if (Array.isArray(v)) return v.length ? v.join(', ') : t('speed.none');
  if (typeof v === 'object') return field === 'schedule' ? t('audit.aSchedule') : JSON.stringify(v);
  return String(v);
}

/** What changed, one phrase a field: "data limit 5 GiB -> 10 GiB" (or "name alice" without a before). */
export function changes(summary: Record<string, unknown>): string[] {
  const was = (summary.was ?? null) as Record<string, unknown> | null;
  return Object.entries(summary).filter(([k]) => k !== 'was' && k !== 'serverID' && k !== 'from' && k !== 'to').map(([k, v]) => {
    const label = fieldWords(k);
    return was && k in was ? `${label} ${valueText(k, was[k])} -> ${valueText(k, v)}` : `${label} ${valueText(k, v)}`;
  });
}

/** The entry as one line: "changed peer 3: set data limit 5 GiB -> 10 GiB". */
export function auditSentence(action: string, targetId: string | null, summary: Record<string, unknown>): string {
  const role = summary.from !== undefined && summary.to !== undefined ? `: ${summary.from} -> ${summary.to}` : '';
  if (action.endsWith('.update')) {
    const verb = sentenceOf(action, targetId ?? '');
    const list = changes(summary);
    return list.length ? t('audit.set', { verb, changes: list.join('; ') }) : verb;
  }
  // The name goes beside the id, where each language puts the thing ("Peer 3 “phone” hinzugefügt").
  const name = typeof summary.name === 'string' && summary.name ? `“${summary.name}”` : '';
  const verb = sentenceOf(action, [targetId ?? '', name].filter(Boolean).join(' '));
  return `${verb}${name && !verb.includes(name) ? ` ${name}` : ''}${role}`;
}

/** The action's words with its target, without the space an empty target leaves. */
const sentenceOf = (action: string, target: string): string =>
  (actionWords(action, target) ?? action.replace('.', ' ')).replace(/\s+(?=[\s:，。]|$)/g, '').trim();
