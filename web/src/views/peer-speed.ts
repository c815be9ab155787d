// A peer's bandwidth limits as the page shows and takes them: Mbit/s, empty for none.
import type { Peer } from '../types';
import { t } from '../i18n';

export const downloadLabel = () => t('speed.down');
export const uploadLabel = () => t('speed.up');
export const speedHint = () => t('speed.hint');

/** '' when the text is a usable limit or empty, else what is wrong with it. */
export function speedLimit(text: string): string {
  const typed = text.trim();
  if (!typed) return '';
  const n = Number(typed);
  if (!/^\d+(\.\d+)?$/.test(typed) || !Number.isFinite(n)) return t('speed.number');
  if (n < 0.1 || n > 10_000) return t('speed.range');
  return '';
}

/** The API's value of a field's text: null for empty. */
export const mbpsOf = (text: string): number | null => (text.trim() ? Number(text.trim()) : null);

/** The peers table's words: "↓ 20 / ↑ 5 Mbit/s", "none". */
export function speedShown(p: Pick<Peer, 'downloadLimitMbps' | 'uploadLimitMbps'>): string {
  if (p.downloadLimitMbps === null && p.uploadLimitMbps === null) return t('speed.none');
  const part = (v: number | null) => (v === null ? t('speed.noLimit') : t('speed.mbps', { n: v }));
  return t('speed.shown', { down: part(p.downloadLimitMbps), up: part(p.uploadLimitMbps) });
}
