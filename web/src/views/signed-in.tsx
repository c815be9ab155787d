// Who is signed in to the page (admins): each live session with the person (single
// sign-on) or the key behind it; an admin ends one session, or every session of a person.
import { formatDate } from '../format';
import { Cell } from '../cell';
import { api, get } from '../api';
import { ConfirmDelete } from '../confirm';
import { LoadError, useLoad } from '../load';
import { notify } from '../notice';
import type { SignedIn } from '../types';


export function SignedInList() {
  const list = useLoad(() => get<{ sessions: SignedIn[] }>('/api/sessions'), []);
  const endPerson = async (s: SignedIn) => {
    const { ended } = await api<{ ended: number }>('DELETE', `/api/people/${encodeURIComponent(s.subject!)}/sessions`);
    notify(`Ended ${ended} session${ended === 1 ? '' : 's'} of ${s.email ?? s.subject}`);
    list.reload();
  };
  const endOne = async (s: SignedIn) => {
    await api('DELETE', `/api/sessions/${s.id}`);
    notify('Session ended');
    list.reload();
  };
  return (
    <section aria-labelledby="signed-in-h">
      <h2 id="signed-in-h">Signed in</h2>
      <LoadError error={list.error} code={list.code} reload={list.reload} />
      {list.data && (
        <div class="table-wrap stack"><table class="signed-in">
          <thead><tr><th scope="col">Who</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col">Last seen</th><th scope="col"><span class="visually-hidden">End</span></th></tr></thead>
          <tbody>
            {list.data.sessions.map((s) => (
              <tr key={s.id}>
                <td class="name">{s.kind === 'person' ? s.email ?? s.subject : `${s.kind === 'token' ? 'token' : 'key'} ${s.name}`}</td>
                <Cell label="Role">{s.role}</Cell>
                <Cell label="Since">{formatDate(s.createdAt)}</Cell>
                <Cell label="Last seen">{formatDate(s.lastSeenAt)}</Cell>
                <td>{s.kind === 'person'
                  ? <ConfirmDelete what={`every session of ${s.email ?? s.subject}`} label="End sessions" onDelete={() => endPerson(s)} />
                  : <ConfirmDelete what="this session" label="End session" onDelete={() => endOne(s)} />}</td>
              </tr>
            ))}
          </tbody>
        </table></div>
      )}
    </section>
  );
}
