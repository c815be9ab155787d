// The one table layout of the commands that print data for people (their --json is for
// scripts): a header row in capitals, columns padded to their widest cell, two spaces apart.
export type Cell = string | number | null | undefined;

/** The table as text; `right` names the columns (by index) aligned right, as numbers are. */
export function renderTable(header: string[], rows: Cell[][], right: readonly number[] = []): string {
  const text = [header, ...rows.map((r) => r.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c))))];
  const widths = header.map((_, i) => Math.max(...text.map((r) => r[i].length)));
  return text.map((r) => r.map((c, i) => (right.includes(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd()).join('\n') + '\n';
}

/** An ISO time as `2026-11-28 01:30` UTC, short enough for a table. */
export const shortTime = (iso: string | null): string | null => (iso === null ? null : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`);
