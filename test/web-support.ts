// What the dashboard suites share: the page built from the current web/ sources, Debian's
// chromium driven by puppeteer-core (declared as requirements: a suite without them skips
// and says why), watchers for console errors, CSP violations and requests leaving the
// origin, axe-core, zbarimg, and many peers put straight into the store.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'uvu';
import type { Browser, Page } from 'puppeteer-core';
import { skip, suiteNeeding } from './helpers/root';
import { tempDir } from './helpers/daemon';
import type { App } from '../src/app';

export const REPO = path.join(__dirname, '..', '..');
export const WEB_OUT = path.join(REPO, 'dist', 'web');
export const SCREENSHOTS = path.join(REPO, 'docs', 'screenshots');
const NODE_MODULES = ['puppeteer-core', 'axe-core'];

export interface BuildInfo { firstLoadGzipBytes: number; budgetGzipBytes: number; files: { name: string; bytes: number; gzipBytes: number; firstLoad: boolean }[] }

/** Builds dist/web when web/ changed since its last build (as `npm test` does), and says what it holds. */
export function ensureWebBuilt(): BuildInfo {
  execFileSync(process.execPath, [path.join(REPO, 'web', 'build.mjs'), '--if-stale'], { stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(fs.readFileSync(path.join(WEB_OUT, 'build-info.json'), 'utf8')) as BuildInfo;
}

function missingModules(): string[] {
  return NODE_MODULES.filter((m) => {
    try {
      require.resolve(m);
      return false;
    } catch {
      return true;
    }
  });
}

/** A suite that needs chromium (and `tools`) and the Node modules that drive it. */
export function browserSuite(name: string, tools: string[] = []): Test {
  const missing = missingModules();
  if (missing.length) {
    const t = suiteNeeding(name, []);
    skip(name, `missing Node modules: ${missing.join(', ')} (npm ci)`);
    t.run = () => {};
    return t;
  }
  return suiteNeeding(name, ['chromium', ...tools]);
}

function onPath(tool: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = path.join(dir, tool);
    if (fs.existsSync(p)) return p;
  }
  throw new Error(`${tool} is not on PATH`);
}

/** Chromium headless with the flags that work here as root, in a fresh profile. */
export async function launchChromium(): Promise<Browser> {
  const puppeteer = await import('puppeteer-core');
  return puppeteer.launch({
    executablePath: onPath('chromium'),
    headless: true,
    userDataDir: tempDir('wgcp-chromium-'),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-features=Translate,MediaRouter'],
  });
}

export interface PageWatch {
  consoleErrors: string[];
  cspViolations: string[];
  /** Requests (and WebSockets) to anywhere but the page's origin. */
  foreign: string[];
  requests: string[];
  /** A URL part of an answer a test provokes on purpose (a 400 for a bad field): its one console line is expected. */
  expectFailure(urlPart: string): void;
}

export async function watchPage(page: Page, origin: string): Promise<PageWatch> {
  const expected: string[] = [];
  const w: PageWatch = { consoleErrors: [], cspViolations: [], foreign: [], requests: [], expectFailure: (u) => { expected.push(u); } };
  const leaves = (url: string) => !url.startsWith(`${origin}/`) && !url.startsWith(origin.replace(/^http/, 'ws') + '/') && !url.startsWith('data:') && !url.startsWith('blob:');
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const url = m.location()?.url ?? '';
    const i = /^Failed to load resource/.test(m.text()) ? expected.findIndex((e) => url.includes(e)) : -1;
    // Each expected failure excuses one console line: a second one is a finding.
    if (i >= 0) return void expected.splice(i, 1);
    w.consoleErrors.push(`${m.text()} (${url})`);
  });
  page.on('pageerror', (e) => { w.consoleErrors.push(`page error: ${e instanceof Error ? e.message : String(e)}`); });
  page.on('request', (r) => {
    w.requests.push(`${r.method()} ${r.url()}`);
    if (leaves(r.url())) w.foreign.push(r.url());
  });
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  cdp.on('Network.webSocketCreated', (e) => {
    w.requests.push(`WS ${e.url}`);
    if (leaves(e.url)) w.foreign.push(e.url);
  });
  await page.exposeFunction('__wgcpCspViolation', (text: string) => { w.cspViolations.push(text); });
  await page.evaluateOnNewDocument(`document.addEventListener('securitypolicyviolation',
    (e) => window.__wgcpCspViolation(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber))`);
  return w;
}

export interface AxeProblem { id: string; impact: string; help: string; nodes: string[] }

/** axe-core's serious and critical findings on the page as it is now. */
export async function seriousAxeProblems(page: Page): Promise<AxeProblem[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const found = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })))`)) as AxeProblem[];
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Puts `count` peers on a server in one transaction, as if imported with their own keys. */
export function seedPeers(app: App, serverId: number, count: number, net: [number, number]): void {
  const now = app.now().toISOString();
  app.store.tx(() => {
    for (let i = 0; i < count; i++) {
      const host = i + 2;
      const peer = {
        serverId, name: `peer-${String(i).padStart(5, '0')}`, email: i % 10 === 0 ? `user${i}@example.com` : '',
        ip: `${net[0]}.${net[1]}.${host >> 8}.${host & 255}`, ip6: null, publicKey: crypto.randomBytes(32).toString('base64'), privateKey: null,
        presharedKey: crypto.randomBytes(32).toString('base64'), allowAccess: [], allowInternet: i % 2 === 0, enabled: true,
        disabledReasons: [], dataLimitGB: 0, usageBytes: (i * 7919) % 5_000_000_000, expiresAt: null, createdAt: now, updatedAt: now,
      };
      app.store.peers.insert(peer as Parameters<App['store']['peers']['insert']>[0]);
    }
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
