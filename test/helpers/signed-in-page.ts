// The dashboard in chromium as the page suites start it: the page built, a browser with one
// tab at a viewport (a desktop unless told), the browser's languages when a suite wants
// another than English, the watchers (console errors, CSP, requests leaving the origin), the
// driver, and a sign-in with a key that waits until the overview is drawn.
import type { Browser, Page, Viewport } from 'puppeteer-core';
import { ensureWebBuilt, launchChromium, watchPage, type PageWatch } from '../web-support';
import { driver } from '../web-drive';

export const DESKTOP: Viewport = { width: 1280, height: 900 };
export const PHONE: Viewport = { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
/** A name of 64 characters (the most a name may have) with no space or hyphen to break at. */
export const LONG = (c: string) => `${c.repeat(20)}ANameOfSixtyFourCharactersWithNoSpaceOrHyphen${c.repeat(20)}`.slice(0, 64);

export interface PageOptions {
  viewport?: Viewport;
  /** What navigator.languages says, first first ("de-AT", "de"); the browser's own when left out. */
  languages?: string[];
  /** Sign in with this key at once (true: the daemon's); false leaves the page unopened. */
  signIn?: boolean | string;
}

export interface DashboardPage {
  browser: Browser;
  page: Page;
  watch: PageWatch;
  drive: ReturnType<typeof driver>;
  /** Opens the page, signs in with the key (the daemon's by default) and waits for the overview. */
  signIn(key?: string): Promise<void>;
  /** Goes to a view of the page (`peers/3`, '' for the overview) and waits for the network to settle. */
  go(view: string): Promise<void>;
}

export async function dashboardPage(daemon: { url: string; key: string }, options: PageOptions = {}): Promise<DashboardPage> {
  ensureWebBuilt();
  const browser = await launchChromium();
  const page = await browser.newPage();
  await page.setViewport(options.viewport ?? DESKTOP);
  if (options.languages) await page.evaluateOnNewDocument(`Object.defineProperty(navigator, 'languages', { get: () => ${JSON.stringify(options.languages)} })`);
  const watch = await watchPage(page, daemon.url);
  const drive = driver(page);
  const go = async (view: string) => { await page.goto(`${daemon.url}/#/${view}`, { waitUntil: 'networkidle0' }); };
  const signIn = async (key = daemon.key) => {
    await page.goto(`${daemon.url}/`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('#signin-key');
    await page.type('#signin-key', key);
    await page.keyboard.press('Enter');
    // The overview, in whatever language: its totals are drawn once signed in.
    await drive.waitFor(`!!document.querySelector('header nav') && !!document.querySelector('main .cards') && !!document.querySelector('main h1')`);
  };
  if (options.signIn !== undefined && options.signIn !== false) await signIn(options.signIn === true ? daemon.key : options.signIn);
  return { browser, page, watch, drive, signIn, go };
}
