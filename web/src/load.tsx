// Loading a view's data: the result, its error, and a reload the live stream can call.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describe } from './api';
import { t } from './i18n';

/** `code`: the failed load's API code (WGCP_…), '' when none. */
export interface Loaded<T> { data: T | undefined; error: string; code: string; loading: boolean; reload(): void }

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState('');
  const [code, setCode] = useState('');
  const [loading, setLoading] = useState(true);
  // Answers can arrive out of order: only the latest request's answer is shown.
  const seq = useRef(0);
  const reload = useCallback(() => {
    const mine = ++seq.current;
    setLoading(true);
    load().then(
      (d) => { if (mine === seq.current) { setData(d); setError(''); setCode(''); setLoading(false); } },
      (e) => { if (mine === seq.current) { setError(describe(e)); setCode(e instanceof ApiError ? e.code : ''); setLoading(false); } },
    );
  }, deps);
  useEffect(reload, [reload]);
  return { data, error, code, loading, reload };
}

/** Calls fn at most once per `ms`, the last call winning (bursts of live events become one reload). */
export function useThrottled(fn: () => void, ms: number): () => void {
  const timer = useRef<number | undefined>(undefined);
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => { timer.current = undefined; latest.current(); }, ms) as unknown as number;
  }, [ms]);
}

export function LoadError({ error, code = '', reload }: { error: string; code?: string; reload?: () => void }) {
  if (!error) return null;
  return (
    <div class="form-error" role="alert">
      <p>{error}</p>
      {/* Not found stays not found (by the API's code): trying again is offered only for what may pass. */}
      {reload && !/_NOT_FOUND$/.test(code) && <button type="button" onClick={reload}>{t('load.retry')}</button>}
    </div>
  );
}

export function useTitle(title: string): void {
  useEffect(() => { document.title = title ? `${title} · wgcp` : 'wgcp'; }, [title]);
}
