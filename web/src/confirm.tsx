// A delete that asks first, in the page (no window.confirm): the first press shows the
// question and a second, explicit button.
import { useEffect, useRef, useState } from 'preact/hooks';
import { describe } from './api';
import { t } from './i18n';

export function ConfirmDelete({ what, onDelete, label = t('confirm.delete') }: { what: string; onDelete: () => Promise<void>; label?: string }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const yes = useRef<HTMLButtonElement>(null);
  // The question takes focus once, when asked: a keyboard user answers it next.
  useEffect(() => { if (asking) yes.current?.focus(); }, [asking]);
  if (!asking) return <button type="button" class="danger" onClick={() => setAsking(true)}>{label}</button>;
  const run = async () => {
    setBusy(true);
    try {
      await onDelete();
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };
  return (
    <div class="confirm" role="group" aria-label={`${label} ${what}`}>
      <p>{t('confirm.question', { action: label, what })}</p>
      {error && <p class="form-error" role="alert">{error}</p>}
      <button type="button" class="danger" disabled={busy} onClick={run} ref={yes}>{t('confirm.yes', { action: label.toLowerCase() })}</button>
      <button type="button" onClick={() => setAsking(false)}>{t('f.cancel')}</button>
    </div>
  );
}
