// A server's peers: searched, sorted and paged by wgcpd (GET /api/servers/{id}/peers with
// q, sort, order, limit, offset; X-Total-Count), so ten thousand peers cost one page of
// rows. A search is sent as soon as it is typed; while one is under way only the newest
// text waits, so fast typing never queues a request a key.
import { can } from '../role';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describe, getPage } from '../api';
import { describeSchedule } from '../schedule-text';
import { formatBytes, formatDate, formatGiB, limitOf, reasonWords } from '../format';
import { isOnline, usage, useLive } from '../live';
import { LoadError, useThrottled } from '../load';
import { href } from '../router';
import { speedShown } from './peer-speed';
import { Cell } from '../cell';
import { t } from '../i18n';
import type { Peer } from '../types';

const PAGE = 50;
type Sort = 'name' | 'ip' | 'latestHandshake' | 'currentDataUsageBytes' | 'expiresAt';

interface Query { q: string; sort: Sort; order: 'asc' | 'desc'; offset: number }
interface Result { items: Peer[]; total: number; query: Query }

function usePeerPages(serverId: string, onShown: () => void) {
  const [query, setQuery] = useState<Query>({ q: '', sort: 'name', order: 'asc', offset: 0 });
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState({ text: '', code: '' });
  const busy = useRef(false);
  const waiting = useRef<Query | null>(null);
  const shown = useRef(false);

  const fetchPage = (q: Query) => {
    if (busy.current) { waiting.current = q; return; }
    busy.current = true;
    const params = new URLSearchParams({ limit: String(PAGE), offset: String(q.offset), sort: q.sort, order: q.order });
    if (q.q) params.set('q', q.q);
    getPage<Peer>(`/api/servers/${serverId}/peers?${params}`).then(
      (r) => {
        setResult({ ...r, query: q });
        setError({ text: '', code: '' });
        if (!shown.current) { shown.current = true; onShown(); }
      },
      (e) => setError({ text: describe(e), code: e instanceof ApiError ? e.code : '' }),
    ).finally(() => {
      busy.current = false;
      const next = waiting.current;
      waiting.current = null;
      if (next) fetchPage(next);
    });
  };
  useEffect(() => fetchPage(query), [query, serverId]);
  return { query, setQuery, result, error, reload: () => fetchPage(query) };
}

function Status({ peer }: { peer: Peer }) {
  const live = usage.get(peer.id);
  const enabled = live ? live.enabled : peer.enabled;
  const reason = live ? live.disabledReason : peer.disabledReason;
  if (!enabled) return <span class="pill off">{t('state.off', { why: reasonWords(reason) })}</span>;
  return isOnline(live?.latestHandshake) ? <span class="pill on">{t('state.online')}</span> : <span class="pill">{t('state.offline')}</span>;
}

export function PeersTable({ serverId, onShown = () => {} }: { serverId: string; onShown?: () => void }) {
  const { query, setQuery, result, error, reload } = usePeerPages(serverId, onShown);
  const [text, setText] = useState('');
  const [, setTick] = useState(0);
  const reloadSoon = useThrottled(reload, 300);
  useLive((e) => {
    if (e.event === 'usage') setTick((n) => n + 1);
    else if (String(e.serverID) === serverId && e.event !== 'serverChanged') reloadSoon();
  }, [serverId, reloadSoon]);

  const search = (value: string) => {
    setText(value);
    setQuery((q) => ({ ...q, q: value.trim(), offset: 0 }));
  };
  const sortBy = (sort: Sort) => setQuery((q) => ({ ...q, sort, order: q.sort === sort && q.order === 'asc' ? 'desc' : 'asc', offset: 0 }));
  const th = (sort: Sort, label: string) => (
    <th scope="col" aria-sort={query.sort === sort ? (query.order === 'asc' ? 'ascending' : 'descending') : undefined}>
      <button type="button" class="sort" onClick={() => sortBy(sort)}>
        {label}<span aria-hidden="true">{query.sort === sort ? (query.order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
      </button>
    </th>
  );

  const total = result?.total ?? 0;
  const from = result && total > 0 ? result.query.offset + 1 : 0;
  const to = result ? result.query.offset + result.items.length : 0;
  const page = (offset: number) => setQuery((q) => ({ ...q, offset }));
  return (
    <section aria-labelledby="peers-h">
      <div class="bar">
        <h2 id="peers-h">{t('peers.title')}</h2>
        {can('operator') && <a class="button primary" href={href('servers', serverId, 'peers', 'new')}>{t('peers.add')}</a>}
      </div>
      <div class="field search">
        <label for="peer-search">{t('peers.search')}</label>
        <input id="peer-search" type="search" value={text} autoComplete="off" aria-controls={result && result.items.length > 0 ? 'peers' : undefined}
          placeholder={t('peers.searchHint')} onInput={(e) => search(e.currentTarget.value)} />
      </div>
      <LoadError error={error.text} code={error.code} reload={reload} />
      <p class="count" role="status">
        {!result ? t('peers.loading') : total === 0 ? (result.query.q ? t('peers.noMatch', { q: result.query.q }) : t('peers.none'))
          : total <= PAGE ? t(total === 1 ? 'peers.count.one' : 'peers.count.many', { n: total }) : t('peers.showing', { from, to, total })}
      </p>
      {result && result.items.length > 0 && (
        <div class="table-wrap stack sorts">
          <table id="peers" aria-labelledby="peers-h">
            <thead><tr>{th('name', t('peers.col.name'))}{th('ip', t('peers.col.address'))}{th('latestHandshake', t('peers.col.status'))}{th('currentDataUsageBytes', t('peers.col.used'))}{th('expiresAt', t('peers.col.expires'))}<th scope="col">{t('peers.col.speed')}</th></tr></thead>
            <tbody>
              {result.items.map((p) => {
                const used = usage.get(p.id)?.currentDataUsageBytes ?? p.currentDataUsageBytes;
                return (
                  <tr key={p.id}>
                    <th scope="row" class="name"><a href={href('peers', p.id)} title={p.name || undefined}>{p.name || `peer ${p.id}`}</a></th>
                    <Cell label={t('peers.col.address')}><code>{p.ip}</code>{p.ip6 && <><br /><code class="ip6">{p.ip6}</code></>}</Cell>
                    <Cell label={t('peers.col.status')}><Status peer={p} />{p.schedule && <><br /><small class="scheduled" title={describeSchedule(p.schedule)}>{t('peers.scheduled')}</small></>}</Cell>
                    <Cell label={t('peers.col.usedShort')}>{limitOf(p) > 0 ? t('peers.usedOf', { used: formatBytes(used), limit: formatGiB(limitOf(p)) }) : formatBytes(used)}</Cell>
                    <Cell label={t('peers.col.expires')} wideOnly={!p.expiresAt}>{p.expiresAt ? formatDate(p.expiresAt) : t('peers.never')}</Cell>
                    <Cell label={t('peers.col.speed')} wideOnly>{speedShown(p)}</Cell>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {total > PAGE && result && (
        <nav class="pager" aria-label={t('peers.pages')}>
          <button type="button" disabled={result.query.offset === 0} onClick={() => page(Math.max(0, result.query.offset - PAGE))}>{t('peers.prev')}</button>
          <span>{t('peers.page', { page: Math.floor(result.query.offset / PAGE) + 1, pages: Math.ceil(total / PAGE) })}</span>
          <button type="button" disabled={to >= total} onClick={() => page(result.query.offset + PAGE)}>{t('peers.next')}</button>
        </nav>
      )}
    </section>
  );
}
