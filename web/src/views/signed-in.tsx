// Who is signed in to the page (admins): each live session with the person (single
// sign-on) or the key behind it; an admin ends one session, or every session of a person.
import { formatDate } from '../format';
import { t } from '../i18n';
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
    notify(t(ended === 1 ? 'who.endedOne' : 'who.ended', { n: ended, who: s.email ?? s.subject ?? '' }));
    list.reload();
  };
  const endOne = async (s: SignedIn) => {
    await api('DELETE', `/api/sessions/${s.id}`);
    notify(t('who.endedSession'));
    list.reload();
  };
  return (
    <section aria-labelledby="signed-in-h">
      <h2 id="signed-in-h">{t('who.title')}</h2>
      <LoadError error={list.error} code={list.code} reload={list.reload} />
      {list.data && (
        <div class="table-wrap stack"><table class="signed-in">
          <thead><tr><th scope="col">{t('who.who')}</th><th scope="col">{t('cred.role')}</th><th scope="col">{t('who.since')}</th><th scope="col">{t('who.seen')}</th><th scope="col"><span class="visually-hidden">{t('who.end')}</span></th></tr></thead>
          <tbody>
            {list.data.sessions.map((s) => (
              <tr key={s.id}>
                <td class="name">{s.kind === 'person' ? s.email ?? s.subject : t(s.kind === 'token' ? 'who.token' : 'who.key', { name: s.name })}</td>
                <Cell label={t('cred.role')}>{s.role}</Cell>
                <Cell label={t('who.since')}>{formatDate(s.createdAt)}</Cell>
                <Cell label={t('who.seen')}>{formatDate(s.lastSeenAt)}</Cell>
                <td>{s.kind === 'person'
                  ? <ConfirmDelete what={t('who.everySession', { who: s.email ?? s.subject ?? '' })} label={t('who.endAll')} onDelete={() => endPerson(s)} />
                  : <ConfirmDelete what={t('who.thisSession')} label={t('who.endOne')} onDelete={() => endOne(s)} />}</td>
              </tr>
            ))}
          </tbody>
        </table></div>
      )}
    </section>
  );
}
