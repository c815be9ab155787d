// Numbers and times as a person reads them. Bytes in binary units: the API's "GB" of a data
// limit is 1,073,741,824 bytes, so the page calls it GiB everywhere.
import { currentLanguage, t } from './i18n';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(n: number): string {
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) { v /= 1024; i++; }
  const digits = i === 0 ? 0 : v < 10 ? 1 : 0;
  return `${v.toLocaleString(currentLanguage(), { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${UNITS[i]}`;
}

// The daemon's own rule of the data limit (a pure module without imports): one GiB, tenths,
// the contract's whole GB, so the page and wgcpd cannot judge a limit differently.
export { GB as GIB, isTenthsLimit, wholeGB } from '../../src/data-limit';

/** A data limit (the API's dataLimitGiB) as the page says it: "50 GiB", "1.5 GiB". */
export const formatGiB = (gib: number): string => `${gib.toLocaleString(currentLanguage(), { maximumFractionDigits: 1 })} GiB`;

/** A peer's exact limit: dataLimitGiB, or the contract's dataLimitGB from a wgcpd before tenths. */
export const limitOf = (p: { dataLimitGB: number; dataLimitGiB?: number }): number => p.dataLimitGiB ?? p.dataLimitGB;

/** A limit as typed ("1.5", "1,5"), as the API's number, or the text itself so that the API names the field. */
export function limitValue(text: string): number | string {
  const s = text.trim().replace(',', '.') || '0';
  return /^\d+(\.\d+)?$/.test(s) ? Number(s) : s;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(currentLanguage());
}

export function formatAgo(unixSeconds: number, nowMs = Date.now()): string {
  if (!unixSeconds) return t('peers.never');
  return formatRelative(new Date(unixSeconds * 1000).toISOString(), nowMs);
}


/** An RFC 3339 time as the value of an <input type="datetime-local"> (local time), and back. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}

/** Why a peer is off, in words: "over its data limit"; a reason this page does not know is shown as the API says it. */
export const reasonWords = (reason: string): string =>
  ({ admin: t('reason.admin'), suspended: t('reason.suspended'), data_limit: t('reason.data_limit'), schedule: t('reason.schedule') })[reason] ?? reason;

/** A past or future time relative to now ("5 minutes ago"), by Intl; the exact time goes in a title. */
export function formatRelative(iso: string, nowMs = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((t - nowMs) / 1000);
  const rtf = new Intl.RelativeTimeFormat(currentLanguage(), { numeric: 'auto' });
  const a = Math.abs(s);
  if (a < 60) return rtf.format(s, 'second');
  if (a < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (a < 86400) return rtf.format(Math.round(s / 3600), 'hour');
  if (a < 30 * 86400) return rtf.format(Math.round(s / 86400), 'day');
  return new Date(t).toLocaleDateString(currentLanguage());
}
