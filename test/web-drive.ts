// Driving the dashboard in chromium as a person does, for the page suites: waiting for what
// shows, typing, clicking by a button's words, reading a field's error as it is shown.
// Screenshots are written only when asked for (WGCP_SCREENSHOTS=1, `npm run screenshots`):
// a test run leaves the tracked docs/screenshots alone.
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { Page } from 'puppeteer-core';
import { SCREENSHOTS, seriousAxeProblems } from './web-support';

export const SCREENSHOTS_WANTED = process.env.WGCP_SCREENSHOTS === '1';

export function driver(page: Page) {
  const js = <T>(expr: string): Promise<T> => page.evaluate(expr) as Promise<T>;
  /** Waits for expr to hold; a timeout says where the page was and what it showed (a failed run is read from this). */
  const waitFor = (expr: string, timeout = 20_000) => page.waitForFunction(expr, { timeout }).catch(async (err: unknown) => {
    const where = await js<string>(`location.hash + ' h1=' + JSON.stringify(document.querySelector('main h1')?.textContent ?? null)
      + ' main=' + JSON.stringify((document.querySelector('main')?.innerText ?? '').slice(0, 300))`).catch(() => '(page gone)');
    throw new Error(`waiting for ${expr}: ${err instanceof Error ? err.message : String(err)}; the page was at ${where}`);
  });
  const d = {
    js,
    waitFor,
    h1Is: (text: string) => waitFor(`document.querySelector('main h1')?.textContent === ${JSON.stringify(text)}`),
    hasText: (sel: string, text: string) => waitFor(`[...document.querySelectorAll(${JSON.stringify(sel)})].some((e) => e.textContent.includes(${JSON.stringify(text)}))`),
    /** Replaces a text field's value by typing, as a person would. */
    async typeInto(id: string, text: string): Promise<void> {
      await page.click(`#${id}`, { count: 3 });
      await page.keyboard.press('Backspace');
      await page.type(`#${id}`, text);
    },
    /** Sets a control a person sets with a picker (a date) and tells the page, as its input event does. */
    setValue: (id: string, value: string) => js(`(() => { const el = document.getElementById(${JSON.stringify(id)});
      el.value = ${JSON.stringify(value)}; el.dispatchEvent(new Event('input', { bubbles: true })); })()`),
    /** Ticks or clears a checkbox by clicking it, when it is not so already. */
    async setChecked(id: string, on: boolean): Promise<void> {
      if ((await js<boolean>(`document.getElementById(${JSON.stringify(id)}).checked`)) !== on) await page.click(`#${id}`);
    },
    /** Clicks the button of that text once the view has drawn it (some come with the view's data). */
    async clickButton(text: string): Promise<void> {
      const button = `[...document.querySelectorAll('button, a.button')].find((b) => b.textContent.trim() === ${JSON.stringify(text)})`;
      await waitFor(`!!${button}`);
      await js(`${button}.click()`);
    },
    async accessible(view: string): Promise<void> {
      const problems = await seriousAxeProblems(page);
      assert.equal(problems, [], `axe-core on ${view}: ${JSON.stringify(problems, null, 1)}`);
    },
    /** The field's error as the page shows it: beside the field, tied to it, and the field marked invalid. */
    async fieldError(id: string): Promise<string> {
      await waitFor(`document.getElementById(${JSON.stringify(`${id}-error`)})`);
      return js(`(() => { const el = document.getElementById(${JSON.stringify(id)}); const err = document.getElementById(${JSON.stringify(`${id}-error`)});
        if (el.getAttribute('aria-invalid') !== 'true' || !el.getAttribute('aria-describedby').split(' ').includes(err.id)) return 'not tied to its field';
        if (el.parentElement !== err.parentElement) return 'not beside its field';
        return err.textContent; })()`);
    },
    /** The errors shown beside fields of the form whose fields' ids start with `prefix`, by field id. */
    fieldErrors: (prefix: string) => js<Record<string, string>>(`Object.fromEntries([...document.querySelectorAll('.field-error')]
      .filter((e) => e.id.startsWith(${JSON.stringify(prefix)})).map((e) => [e.id.replace(/-error$/, ''), e.textContent]))`),
    /** Whether the page is wider than the window (it scrolls sideways). */
    scrollsSideways: () => js<boolean>('document.documentElement.scrollWidth > window.innerWidth'),
    async shot(name: string): Promise<void> {
      if (SCREENSHOTS_WANTED) await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
    },
  };
  return d;
}
