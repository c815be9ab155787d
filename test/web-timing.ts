// Timings of the dashboard measured inside the page (performance.now()), for the 10,000-peer
// suite and bench/dashboard.ts: how long until a server's first rows show, and until a
// search's answer shows.
import type { Page } from 'puppeteer-core';

const FIRST_ROW = '#peers tbody tr';

/** Milliseconds from a hash navigation (from another view) to the server's first rows. */
export async function openServerInApp(page: Page, serverId: number): Promise<number> {
  await page.evaluate(`location.hash = '#/'`);
  await page.waitForFunction(`document.querySelector('main h1')?.textContent === 'Overview' && !document.querySelector(${JSON.stringify(FIRST_ROW)})`);
  return page.evaluate(`new Promise((resolve, reject) => {
    const t0 = performance.now();
    const check = () => { if (document.querySelector(${JSON.stringify(FIRST_ROW)})) { obs.disconnect(); resolve(performance.now() - t0); } };
    const obs = new MutationObserver(check);
    obs.observe(document.body, { childList: true, subtree: true });
    location.hash = '#/servers/${serverId}';
    setTimeout(() => reject(new Error('no rows 10 s after navigation')), 10000);
  })`) as Promise<number>;
}

/** Milliseconds from the start of loading the page at the server's address to its first rows (signed in). */
export async function openServerCold(page: Page, base: string, serverId: number): Promise<number> {
  const marker = await page.evaluateOnNewDocument(`new MutationObserver((_, obs) => {
    if (document.querySelector(${JSON.stringify(FIRST_ROW)})) { window.__firstRowsAt = performance.now(); obs.disconnect(); }
  }).observe(document, { childList: true, subtree: true })`);
  try {
    // A new document: going to an address that differs only after '#' would not load anything.
    await page.goto('about:blank');
    await page.goto(`${base}/#/servers/${serverId}`, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction('window.__firstRowsAt !== undefined', { timeout: 10_000 });
    return (await page.evaluate('window.__firstRowsAt')) as number;
  } finally {
    await page.removeScriptToEvaluateOnNewDocument(marker.identifier);
  }
}

/**
 * Milliseconds from the search text being put in the field (as the last key of it would)
 * to the table showing the answer: `expect` is the count line the answer must show.
 */
export async function searchTime(page: Page, q: string, expect: string): Promise<number> {
  return page.evaluate(`new Promise((resolve, reject) => {
    const input = document.getElementById('peer-search');
    const done = () => document.querySelector('.count')?.textContent === ${JSON.stringify(expect)};
    let t0 = 0;
    const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); resolve(performance.now() - t0); } });
    obs.observe(document.body, { childList: true, subtree: true, characterData: true });
    t0 = performance.now();
    input.value = ${JSON.stringify(q)};
    input.dispatchEvent(new Event('input', { bubbles: true }));
    setTimeout(() => reject(new Error('the search did not show ' + ${JSON.stringify(expect)} + ' within 10 s')), 10000);
  })`) as Promise<number>;
}

/** The count line the peers table shows for `total` peers on its first page. */
export function countLine(total: number, q: string, page = 50): string {
  if (total === 0) return q ? `No peer matches “${q}”.` : 'No peer yet.';
  if (total <= page) return `${total.toLocaleString('en-US')} ${total === 1 ? 'peer' : 'peers'}`;
  return `Showing 1–${Math.min(page, total).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} peers`;
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
