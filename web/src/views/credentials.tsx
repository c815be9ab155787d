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
import { NEW_KEY_HOW } from './sign-in';
import { Passkeys } from './passkeys';

const ROLES: { role: Role; text: string }[] = [
  { role: 'admin', text: 'admin: everything' },
  { role: 'operator', text: 'operator: peers, configs, share links, devices' },
  { role: 'viewer', text: 'viewer: reads only' },
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
      {ROLES.map((r) => <option key={r.role} value={r.role}>{text(r)}</option>)}
    </select>
  );
}

const LABELS: Record<string, string> = { name: 'Name', expiresInDays: 'Expires in days' };

interface Kind { path: string; title: string; one: string; secretField: 'key' | 'token'; expires: boolean; about: string; make: string }

const KINDS: Kind[] = [
  { path: '/api/apikeys', title: 'API keys', one: 'API key', secretField: 'key', expires: false, about: 'Sent as wg-control-key by scripts and the wgcp command; they never expire.', make: NEW_KEY_HOW },
  { path: '/api/access-tokens', title: 'Access tokens', one: 'access token', secretField: 'token', expires: true, about: 'Sent as Authorization: Bearer (Prometheus sends this); they may expire.',
    make: 'To make a new access token, run wgcp token create on the router with the daemon\'s data folder (WGCP_DATA_DIR), or sign in with an API key.' },
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
      setError(err instanceof ApiError && err.field ? withLabel(err.message, err.field, LABELS[err.field]) : describe(err));
    }
  };
  // Asked first (the dialog below): one slip of the menu could take a key's rights away,
  // your own included. A refusal (the last admin: 409) shows in the dialog.
  const changeRole = async (c: Credential, next: Role) => {
    await api('PUT', `${kind.path}/${c.id}`, { role: next });
    setChanging(null);
    notify(`${c.name} is now ${next}`);
    list.reload();
  };
  const mine = (c: Credential) => currentWho().credentialID === c.id && currentWho().kind === c.kind;
  const revoke = async (c: Credential) => {
    await api('DELETE', `${kind.path}/${c.id}`);
    // Revoking ends the sessions opened with it: when this page's was one, say so on the sign-in page.
    const session = await get<SessionState>('/api/session');
    if (!session.signedIn) {
      signedOut(`You revoked the ${kind.one} "${c.name}" that you signed in with, so you were signed out. `
        + (kind.secretField === 'key' ? 'If it was the first key, the file api-key in the data folder still holds it, revoked.' : ''));
      return;
    }
    setRevoking(null);
    notify(`${kind.one[0].toUpperCase()}${kind.one.slice(1)} revoked`);
    list.reload();
  };
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{kind.title}</h2>
      <p>{kind.about}</p>
      <form class="cols" onSubmit={create}>
        <div class="field">
          <label for={`${id}-name`}>Name</label>
          <input id={`${id}-name`} value={name} maxLength={64} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for={`${id}-role`}>Role</label>
          <RoleSelect id={`${id}-role`} value={role} onChange={setRole} label="Role" />
        </div>
        {kind.expires && (
          <div class="field">
            <label for={`${id}-days`}>Expires in days (empty: never)</label>
            <input id={`${id}-days`} type="number" min={1} max={36500} value={days} onInput={(e) => setDays((e.target as HTMLInputElement).value)} />
          </div>
        )}
        <div class="buttons"><button type="submit" class="primary">Make an {kind.one}</button></div>
      </form>
      {error && <p class="form-error" role="alert">{error}</p>}
      {fresh && (
        <div class="panel" role="region" aria-labelledby={`${id}-fresh-h`}>
          <h3 id={`${id}-fresh-h`}>New {kind.one}</h3>
          <p>Copy it now: this page shows it only this once.</p>
          <div class="copy">
            <label for={`${id}-fresh`} class="visually-hidden">New {kind.one}</label>
            <input id={`${id}-fresh`} readOnly value={fresh} ref={(el) => { input = el; }} />
            <button type="button" onClick={async () => { if (input && (await copyField(input))) notify('Copied'); }}>Copy</button>
          </div>
        </div>
      )}
      <LoadError error={list.error} reload={list.reload} />
      {list.data && list.data.length > 0 && (
        <p class="hint">Roles: {ROLES.map((r) => r.text).join('; ')}. A change is asked first.</p>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap stack">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Made</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {list.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row" class="name" title={c.name}>{c.name}</th>
                  <Cell label="Role"><RoleSelect id={`${id}-role-${c.id}`} value={c.role} confirm onChange={(next) => { if (next !== c.role) setChanging({ c, next }); }} label={`Role of ${kind.one} ${c.name}`} /></Cell>
                  <Cell label="Made">{formatDate(c.createdAt)}</Cell>
                  <Cell label="Expires">{c.expiresAt ? formatDate(c.expiresAt) : 'never'}</Cell>
                  <Cell label="Last used">{c.lastUsedAt ? formatDate(c.lastUsedAt) : 'not yet'}</Cell>
                  <td><button type="button" class="quiet" onClick={() => setRevoking(c)} aria-label={`Revoke ${kind.one} ${c.name}`}>Revoke</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {changing && (
        <ConfirmDialog title={`Make the ${kind.one} “${changing.c.name}” ${changing.next}?`} yes={`Yes, make it ${changing.next}`}
          onYes={() => changeRole(changing.c, changing.next)} onClose={() => setChanging(null)}>
          <p>It is {changing.c.role} now; it will be {ROLES.find((r) => r.role === changing.next)!.text}. Its page sessions change at once.</p>
          {mine(changing.c) && changing.next !== 'admin' && <p><strong>You signed in with this {kind.one}: you will lose what only {changing.c.role === 'admin' ? 'an admin' : 'an operator'} may do</strong>, and cannot give it back yourself.</p>}
        </ConfirmDialog>
      )}
      {revoking && (
        <ConfirmDialog title={`Revoke the ${kind.one} “${revoking.name}”?`} yes="Yes, revoke" onYes={() => revoke(revoking)} onClose={() => setRevoking(null)}>
          <p>Whoever uses it loses access at once, and every session opened with it ends.</p>
          <p><strong>If you signed in with this {kind.one}, you will be signed out</strong> and will need another key or token to sign in again.</p>
          <p>{kind.make}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

export function Credentials() {
  useTitle('Access');
  return (
    <>
      <h1>Access</h1>
      {currentWho().kind === 'person' ? <p>You signed in with single sign-on as <strong>{currentWho().name}</strong>: your provider's own sign-in protects this session.</p> : <TwoFactor />}
      {(currentWho().kind === 'person' || currentWho().credentialID !== null) && <Passkeys />}
      {can('admin') && <SignedInList />}
      {can('admin') && KINDS.map((k) => <CredentialSection key={k.path} kind={k} />)}
      {can('admin') && <BackupDownload />}
    </>
  );
}
