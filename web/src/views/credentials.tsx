// Two-factor sign-in of one's own key or token; for admins, API keys and access tokens
// with their roles (who may use the API and sign in here), and the backup. A new secret is shown
// whole once, with a copy button; the lists show names and dates only. Revoking one ends
// the sessions opened with it.
import { useState } from 'preact/hooks';
import { ApiError, api, describe, get, signedOut } from '../api';
import { ConfirmDialog } from '../confirm-dialog';
import { copyField } from '../copy';
import { withLabel } from '../form';
import { formatDate } from '../format';
import { LoadError, useLoad, useTitle } from '../load';
import { notify } from '../notice';
import { can, currentWho, type Role } from '../role';
import type { Credential, SessionState } from '../types';
import { TwoFactor } from './two-factor';
import { SignedInList } from './signed-in';
import { BackupDownload } from './backup-download';
import { Cell } from '../cell';
import { newKeyHow } from './sign-in';
import { t } from '../i18n';
import { Passkeys } from './passkeys';

const roles = (): { role: Role; text: string }[] => [
  { role: 'admin', text: t('cred.roleAdmin') },
  { role: 'operator', text: t('cred.roleOperator') },
  { role: 'viewer', text: t('cred.roleViewer') },
];

/**
 * The role menu. `confirm`: the choice is only asked for, so the menu goes back to the
 * stored role until the question is answered (the list reloads with the new one).
 */
function RoleSelect({ id, value, onChange, label, confirm = false }: { id: string; value: Role; onChange: (r: Role) => void; label: string; confirm?: boolean }) {
  // In a list row the menu is narrow: it shows the role's name alone, so it is never cut
  // to nothing; what each role may do is said above the list.
  const text = (r: { role: Role; text: string }) => (confirm ? r.role : r.text);
  return (
    <select id={id} value={value} aria-label={label} onChange={(e) => {
      const menu = e.target as HTMLSelectElement;
      const next = menu.value as Role;
      if (confirm) menu.value = value;
      onChange(next);
    }}>
      {roles().map((r) => <option key={r.role} value={r.role}>{text(r)}</option>)}
    </select>
  );
}

const labels = (): Record<string, string> => ({ name: t('f.name'), expiresInDays: t('cred.days') });

/** A kind's words: `one` is the kind as a sentence names it ("the API key …"). */
interface Words { title: string; one: string; about: string; make: string; makeOne: string; fresh: string; revoked: string; out: string; mine: string }
interface Kind { path: string; secretField: 'key' | 'token'; expires: boolean; words: () => Words }

const KINDS: Kind[] = [
  { path: '/api/apikeys', secretField: 'key', expires: false, words: () => ({ title: t('cred.keys'), one: t('cred.key'), about: t('cred.keysAbout'), make: newKeyHow(),
    makeOne: t('cred.makeKey'), fresh: t('cred.freshKey'), revoked: t('cred.keyRevoked'), out: t('cred.keyOut'), mine: t('cred.keyMine') }) },
  { path: '/api/access-tokens', secretField: 'token', expires: true, words: () => ({ title: t('cred.tokens'), one: t('cred.token'), about: t('cred.tokensAbout'),
    make: t('cred.tokenMake'), makeOne: t('cred.makeToken'), fresh: t('cred.freshToken'), revoked: t('cred.tokenRevoked'), out: t('cred.tokenOut'), mine: t('cred.tokenMine') }) },
];

function CredentialSection({ kind }: { kind: Kind }) {
  const list = useLoad(() => get<Credential[]>(kind.path), [kind.path]);
  const [fresh, setFresh] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  const [revoking, setRevoking] = useState<Credential | null>(null);
  const [role, setRole] = useState<Role>('admin');
  const [changing, setChanging] = useState<{ c: Credential; next: Role } | null>(null);
  const id = kind.secretField;
  const w = kind.words();
  let input: HTMLInputElement | null = null;
  const create = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const body: Record<string, unknown> = {};
      if (name.trim()) body.name = name.trim();
      body.role = role;
      if (kind.expires && days.trim()) body.expiresInDays = Number(days);
      const made = await api<Credential & Record<string, string>>('POST', kind.path, body);
      setFresh(made[kind.secretField]);
      setName('');
      setDays('');
      list.reload();
    } catch (err) {
      // The API's field names said as the labels above say them.
      setError(err instanceof ApiError && err.field ? withLabel(err.message, err.field, labels()[err.field]) : describe(err));
    }
  };
  // Asked first (the dialog below): one slip of the menu could take a key's rights away,
  // your own included. A refusal (the last admin: 409) shows in the dialog.
  const changeRole = async (c: Credential, next: Role) => {
    await api('PUT', `${kind.path}/${c.id}`, { role: next });
    setChanging(null);
    notify(t('cred.roleChanged', { name: c.name, role: next }));
    list.reload();
  };
  const mine = (c: Credential) => currentWho().credentialID === c.id && currentWho().kind === c.kind;
  const revoke = async (c: Credential) => {
    await api('DELETE', `${kind.path}/${c.id}`);
    // Revoking ends the sessions opened with it: when this page's was one, say so on the sign-in page.
    const session = await get<SessionState>('/api/session');
    if (!session.signedIn) {
      signedOut(t('cred.revokedOwn', { what: w.one, name: c.name }) + (kind.secretField === 'key' ? ` ${t('cred.firstKey')}` : ''));
      return;
    }
    setRevoking(null);
    notify(w.revoked);
    list.reload();
  };
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{w.title}</h2>
      <p>{w.about}</p>
      <form class="cols" onSubmit={create}>
        <div class="field">
          <label for={`${id}-name`}>{t('f.name')}</label>
          <input id={`${id}-name`} value={name} maxLength={64} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for={`${id}-role`}>{t('cred.role')}</label>
          <RoleSelect id={`${id}-role`} value={role} onChange={setRole} label={t('cred.role')} />
        </div>
        {kind.expires && (
          <div class="field">
            <label for={`${id}-days`}>{t('cred.daysLabel')}</label>
            <input id={`${id}-days`} type="number" min={1} max={36500} value={days} onInput={(e) => setDays((e.target as HTMLInputElement).value)} />
          </div>
        )}
        <div class="buttons"><button type="submit" class="primary">{w.makeOne}</button></div>
      </form>
      {error && <p class="form-error" role="alert">{error}</p>}
      {fresh && (
        <div class="panel" role="region" aria-labelledby={`${id}-fresh-h`}>
          <h3 id={`${id}-fresh-h`}>{w.fresh}</h3>
          <p>{t('cred.copyNow')}</p>
          <div class="copy">
            <label for={`${id}-fresh`} class="visually-hidden">{w.fresh}</label>
            <input id={`${id}-fresh`} readOnly value={fresh} ref={(el) => { input = el; }} />
            <button type="button" onClick={async () => { if (input && (await copyField(input))) notify(t('copy.done')); }}>{t('copy.button')}</button>
          </div>
        </div>
      )}
      <LoadError error={list.error} code={list.code} reload={list.reload} />
      {list.data && list.data.length > 0 && (
        <p class="hint">{t('cred.rolesHint', { roles: roles().map((r) => r.text).join('; ') })}</p>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap stack">
          <table>
            <thead><tr><th scope="col">{t('f.name')}</th><th scope="col">{t('cred.role')}</th><th scope="col">{t('cred.made')}</th><th scope="col">{t('peers.col.expires')}</th><th scope="col">{t('cred.lastUsed')}</th><th scope="col"><span class="visually-hidden">{t('f.actions')}</span></th></tr></thead>
            <tbody>
              {list.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row" class="name" title={c.name}>{c.name}</th>
                  <Cell label={t('cred.role')}><RoleSelect id={`${id}-role-${c.id}`} value={c.role} confirm onChange={(next) => { if (next !== c.role) setChanging({ c, next }); }} label={t('cred.roleOf', { what: w.one, name: c.name })} /></Cell>
                  <Cell label={t('cred.made')}>{formatDate(c.createdAt)}</Cell>
                  <Cell label={t('peers.col.expires')}>{c.expiresAt ? formatDate(c.expiresAt) : t('peers.never')}</Cell>
                  <Cell label={t('cred.lastUsed')}>{c.lastUsedAt ? formatDate(c.lastUsedAt) : t('cred.notYet')}</Cell>
                  <td><button type="button" class="quiet" onClick={() => setRevoking(c)} aria-label={t('cred.revokeOne', { what: w.one, name: c.name })}>{t('cred.revoke')}</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {changing && (
        <ConfirmDialog title={t('cred.roleAsk', { what: w.one, name: changing.c.name, role: changing.next })} yes={t('cred.roleYes', { role: changing.next })}
          onYes={() => changeRole(changing.c, changing.next)} onClose={() => setChanging(null)}>
          <p>{t('cred.roleNow', { was: changing.c.role, next: roles().find((r) => r.role === changing.next)!.text })}</p>
          {mine(changing.c) && changing.next !== 'admin' && <p><strong>{w.mine} {t(changing.c.role === 'admin' ? 'cred.loseAdmin' : 'cred.loseOperator')}</strong></p>}
        </ConfirmDialog>
      )}
      {revoking && (
        <ConfirmDialog title={t('cred.revokeAsk', { what: w.one, name: revoking.name })} yes={t('cred.revokeYes')} onYes={() => revoke(revoking)} onClose={() => setRevoking(null)}>
          <p>{t('cred.revokeText')}</p>
          <p><strong>{w.out}</strong> {t('cred.revokeAgain')}</p>
          <p>{w.make}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

export function Credentials() {
  useTitle(t('nav.access'));
  return (
    <>
      <h1>{t('nav.access')}</h1>
      {currentWho().kind === 'person' ? <p>{t('cred.sso', { name: currentWho().name })}</p> : <TwoFactor />}
      {(currentWho().kind === 'person' || currentWho().credentialID !== null) && <Passkeys />}
      {can('admin') && <SignedInList />}
      {can('admin') && KINDS.map((k) => <CredentialSection key={k.path} kind={k} />)}
      {can('admin') && <BackupDownload />}
    </>
  );
}
