// The audit log (admins): who did what, when and from where, newest first, filtered by
// actor, target and action, a page at a time. Each entry is a sentence with what it changed
// (audit-text.ts), the time relative with the exact time on hover, the raw fields expandable.
import { useState } from 'preact/hooks';
import { describe, get } from '../api';
import { auditSentence, changes } from '../audit-text';
import { formatDate, formatRelative } from '../format';
import { t } from '../i18n';
import { useTitle } from '../load';
import type { AuditEntry } from '../types';

interface Page { entries: AuditEntry[]; nextCursor: number | null }
const filters = () => [
  { name: 'actor', label: t('audit.actor'), hint: t('audit.actorHint', { kinds: 'apikey, token, page, job, cli, share', form: 'kind:id' }) },
  { name: 'target', label: t('audit.target'), hint: t('audit.targetHint', { kinds: 'peer, server, apikey…', form: 'type:id' }) },
  { name: 'action', label: t('audit.action'), hint: t('audit.actionHint', { examples: 'share, peer.update' }) },
] as const;

const actorText = (e: AuditEntry) => e.actor.name ? `${e.actor.name} (${e.actor.kind}${e.actor.id !== null ? ` ${e.actor.id}` : ''})` : `${e.actor.kind}${e.actor.id !== null ? ` ${e.actor.id}` : ''}`;

export function Audit() {
  useTitle(t('audit.title'));
  const [filter, setFilter] = useState<Record<string, string>>({ actor: '', target: '', action: '' });
  const [rows, setRows] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState('');
  const load = async (cursor: number | null) => {
    setError('');
    const q = new URLSearchParams({ limit: '50' });
    for (const [k, v] of Object.entries(filter)) if (v.trim()) q.set(k, v.trim());
    if (cursor !== null) q.set('cursor', String(cursor));
    try {
      const page = await get<Page>(`/api/audit?${q}`);
      setRows((was) => (cursor === null ? page.entries : [...(was ?? []), ...page.entries]));
      setNext(page.nextCursor);
    } catch (err) { setError(describe(err)); }
  };
  if (rows === null && !error) void load(null);
  return (
    <>
      <h1>{t('audit.title')}</h1>
      <form class="cols" onSubmit={(e) => { e.preventDefault(); void load(null); }}>
        {filters().map((f) => (
          <div class="field" key={f.name}>
            <label for={`audit-${f.name}`}>{f.label}</label>
            <input id={`audit-${f.name}`} value={filter[f.name]} placeholder={f.hint} onInput={(e) => setFilter({ ...filter, [f.name]: (e.target as HTMLInputElement).value })} />
          </div>
        ))}
        <div class="buttons"><button type="submit" class="primary">{t('audit.filter')}</button></div>
      </form>
      {error && <p class="form-error" role="alert">{error}</p>}
      {rows && rows.length === 0 && <p>{t('audit.none')}</p>}
      {rows && rows.length > 0 && (
        <ol class="audit" aria-label={t('audit.entries')}>
          {rows.map((e) => (
            <li key={e.id}>
              <p class="what">{auditSentence(e.action, e.targetId, e.summary)}</p>
              <p class="by">
                <time dateTime={e.at} title={formatDate(e.at)}>{formatRelative(e.at)}</time>
                {' · '}{actorText(e)}{e.role ? ` (${e.role})` : ''}{e.address ? ` · ${t('audit.from', { address: e.address })}` : ''}
              </p>
              {Object.keys(e.summary).length > 0 && (
                <details>
                  <summary>{t('audit.details')}</summary>
                  <dl class="facts">
                    <div><dt>{t('audit.action')}</dt><dd><code>{e.action}</code></dd></div>
                    <div><dt>{t('audit.target')}</dt><dd>{e.targetType}{e.targetId !== null ? ` ${e.targetId}` : ''}</dd></div>
                    <div><dt>{t('audit.exact')}</dt><dd>{formatDate(e.at)}</dd></div>
                    {changes(e.summary).map((c) => <div class="wide" key={c}><dt>{t('audit.field')}</dt><dd>{c}</dd></div>)}
                  </dl>
                </details>
              )}
            </li>
          ))}
        </ol>
      )}
      {next !== null && <p><button type="button" onClick={() => load(next)}>{t('audit.older')}</button></p>}
    </>
  );
}
