// What the peer page's overview says of a peer's state, so that its parts agree: the badge
// says off and why (the same reason the switch shows), the usage bar turns red at the limit
// and past it says how far; and the bar of sections that jumps to each part of the page.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { formatGiB, GIB, reasonWords } from '../format';
import { t } from '../i18n';

export function StateBadge({ enabled, online, reasons }: { enabled: boolean; online: boolean; reasons: string[] }) {
  if (!enabled) return <span class="pill off">{t('state.off', { why: reasons.map((r) => reasonWords(r)).join(', ') || reasonWords('admin') })}</span>;
  return online ? <span class="pill on">{t('state.online')}</span> : <span class="pill">{t('state.offline')}</span>;
}

/** "120 %, over the limit": beside the bar, in words. */
export const usageWords = (used: number, limitGiB: number): string => {
  const percent = Math.round((used / (limitGiB * GIB)) * 100);
  return t(percent >= 100 ? 'peer.overLimit' : 'peer.percent', { n: percent });
};

export function UsageBar({ used, limitGiB }: { used: number; limitGiB: number }) {
  const percent = Math.round((used / (limitGiB * GIB)) * 100);
  const over = percent >= 100;
  return (
    <div class={`usage-bar${over ? ' over' : percent >= 90 ? ' near' : ''}`} role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.min(percent, 100)}
      aria-valuetext={t('peer.barText', { n: percent, limit: formatGiB(limitGiB) })} aria-label={t('peer.barLabel')}>
      <div class="fill" style={{ width: `${Math.min(percent, 100)}%` }} />
    </div>
  );
}

/**
 * Buttons that bring a section of the page into view and give it the focus (the address is the router's).
 * The bar stays at the top and wraps on a narrow screen (2 or 3 rows, more in a long language), so its
 * real height, followed by a ResizeObserver, is the page's `scroll-padding-top` (style.css): a heading
 * brought into view, or a field reached with the keyboard, lands under the bar, never behind it.
 */
export function SectionNav({ sections }: { sections: [string, string][] }) {
  const bar = useRef<HTMLElement>(null);
  const follow = () => { if (bar.current) document.documentElement.style.setProperty('--sections-height', `${bar.current.offsetHeight}px`); };
  useLayoutEffect(() => {
    const el = bar.current;
    if (!el) return;
    follow();
    const seen = new ResizeObserver(follow);
    seen.observe(el);
    return () => { seen.disconnect(); document.documentElement.style.removeProperty('--sections-height'); };
  }, []);
  const go = (id: string) => {
    const el = document.getElementById(id);
    if (!el) return;
    // The observer tells of a new height at the next frame; a click right after a resize (a
    // phone turned) must not wait for it.
    follow();
    el.scrollIntoView({ block: 'start' });
    if (el.tabIndex < 0 && !el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
    el.focus({ preventScroll: true });
  };
  return (
    <nav ref={bar} class="sections" aria-label={t('peer.sections')}>
      <ul>{sections.map(([id, label]) => <li key={id}><button type="button" class="quiet" onClick={() => go(id)}>{label}</button></li>)}</ul>
    </nav>
  );
}
