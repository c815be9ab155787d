// A question asked in the page, in a modal <dialog> (no window.confirm): what will happen,
// then an explicit button to go on and one to step back. Escape steps back.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describe } from './api';
import { t } from './i18n';

interface Props { title: string; yes: string; onYes: () => Promise<void>; onClose: () => void; children: ComponentChildren }

export function ConfirmDialog({ title, yes, onYes, onClose, children }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  useEffect(() => { dialog.current?.showModal(); }, []);
  const go = async () => {
    setBusy(true);
    setError('');
    try {
      await onYes();
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };
  return (
    <dialog ref={dialog} class="ask" aria-labelledby="ask-h" aria-describedby="ask-body" onClose={onClose}>
      <h2 id="ask-h">{title}</h2>
      <div id="ask-body">{children}</div>
      {error && <p class="form-error" role="alert">{error}</p>}
      <div class="buttons">
        <button type="button" class="danger" disabled={busy} onClick={go}>{yes}</button>
        <button type="button" autoFocus onClick={() => dialog.current?.close()}>{t('f.cancel')}</button>
      </div>
    </dialog>
  );
}
