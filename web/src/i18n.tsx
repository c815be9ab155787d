// The page in the owner's language: t(key, values) gives a catalogue's words (English is in
// the bundle; the others are fetched when chosen, so they cost the first load nothing). The
// language is the one chosen before (kept in localStorage), else the browser's first that
// wgcp has, else English. Numbers put into a message and dates follow it through Intl.
import { useEffect, useState } from 'preact/hooks';
import { en, type MessageKey } from './locales/en';

/** The catalogues the build wrote beside the page (web/build.mjs): language to address. */
declare const __WGCP_LOCALES__: Record<string, string>;

export const LANGUAGES: [string, string][] = [['en', 'English'], ['de', 'Deutsch'], ['fr', 'Français'], ['es', 'Español'], ['zh-CN', '简体中文']];
const STORED = 'wgcp-language';

let language = 'en';
let words: Record<string, string> = en;
const listeners = new Set<(l: string) => void>();

export const currentLanguage = (): string => language;

export function t(key: MessageKey, values: Record<string, string | number> = {}): string {
  const text = words[key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = values[name];
    return typeof v === 'number' ? v.toLocaleString(language) : v ?? '';
  });
}

/** The language of a list of browser tags ("de-AT", "zh-Hans-CN"), or English. */
export function pickLanguage(wanted: readonly string[]): string {
  for (const tag of wanted) {
    const lower = tag.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    const found = LANGUAGES.find(([code]) => code === lower.split('-')[0]);
    if (found) return found[0];
  }
  return 'en';
}

export async function setLanguage(next: string): Promise<void> {
  const loaded: Record<string, string> = next === 'en' ? en : await fetch(__WGCP_LOCALES__[next]).then((r) => {
    if (!r.ok) throw new Error(`the ${next} words could not be loaded: ${r.status}`);
    return r.json() as Promise<Record<string, string>>;
  });
  words = loaded;
  language = next;
  document.documentElement.lang = next;
  try { localStorage.setItem(STORED, next); } catch { /* private mode: chosen for this visit only */ }
  for (const l of listeners) l(next);
}

/** At start: the language chosen before, or the browser's. English needs no fetch. */
export function startLanguage(): Promise<void> {
  let stored: string | null = null;
  try { stored = localStorage.getItem(STORED); } catch { /* none kept */ }
  const next = stored && LANGUAGES.some(([c]) => c === stored) ? stored : pickLanguage(navigator.languages ?? [navigator.language]);
  return next === 'en' ? Promise.resolve() : setLanguage(next).catch(() => {});
}

/** Redraws the caller when the language changes. */
export function useLanguage(): string {
  const [l, set] = useState(language);
  useEffect(() => {
    listeners.add(set);
    return () => { listeners.delete(set); };
  }, []);
  return l;
}

export function LanguageSwitch() {
  const l = useLanguage();
  return (
    <label class="language">
      <span class="visually-hidden">{t('shell.language')}</span>
      <select value={l} onChange={(e) => void setLanguage((e.target as HTMLSelectElement).value)}>
        {LANGUAGES.map(([code, name]) => <option key={code} value={code} lang={code}>{name}</option>)}
      </select>
    </label>
  );
}
