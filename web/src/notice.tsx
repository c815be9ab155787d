// One polite status line for what just happened ("Peer saved"): read out by screen readers,
// shown for a few seconds.
import { useEffect, useState } from 'preact/hooks';

let show: (text: string) => void = () => {};
let timer: number | undefined;

export function notify(text: string): void { show(text); }

export function Notice() {
  const [text, setText] = useState('');
  useEffect(() => {
    show = (t) => {
      setText(t);
      clearTimeout(timer);
      timer = setTimeout(() => setText(''), 6000) as unknown as number;
    };
    return () => { show = () => {}; };
  }, []);
  return <div class="notice" role="status" aria-live="polite">{text ? <p>{text}</p> : null}</div>;
}
