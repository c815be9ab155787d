// A peer's bandwidth limits as the page shows and takes them: Mbit/s, empty for none.
import type { Peer } from '../types';

export const DOWNLOAD_LABEL = 'Download limit (Mbit/s)';
export const UPLOAD_LABEL = 'Upload limit (Mbit/s)';
export const SPEED_HINT = 'Seen from the peer: download is what this router sends it. 0.1 to 10000; empty means no limit.';

/** '' when the text is a usable limit or empty, else what is wrong with it. */
export function speedLimit(text: string): string {
  const t = text.trim();
  if (!t) return '';
  const n = Number(t);
  if (!/^\d+(\.\d+)?$/.test(t) || !Number.isFinite(n)) return 'Enter a number of Mbit/s, such as 20 or 2.5, or leave it empty.';
  if (n < 0.1 || n > 10_000) return 'Enter a limit from 0.1 to 10000 Mbit/s, or leave it empty.';
  return '';
}

/** The API's value of a field's text: null for empty. */
export const mbpsOf = (text: string): number | null => (text.trim() ? Number(text.trim()) : null);

/** The peers table's words: "↓ 20 / ↑ 5 Mbit/s", "none". */
export function speedShown(p: Pick<Peer, 'downloadLimitMbps' | 'uploadLimitMbps'>): string {
  if (p.downloadLimitMbps === null && p.uploadLimitMbps === null) return 'none';
  const part = (v: number | null) => (v === null ? 'no limit' : `${v} Mbit/s`);
  return `down ${part(p.downloadLimitMbps)}, up ${part(p.uploadLimitMbps)}`;
}
