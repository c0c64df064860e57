/**
 * Headless Chromium for the page tests: Debian's /usr/bin/chromium driven by playwright-core (no
 * browser download). Every page records EVERY request; a request to anything but the page's own
 * origin (or file:// for a report opened from disk) is blocked before it leaves the browser and
 * fails the test. Screenshots go to reports/screenshots/<name>.png so a reviewer can look at the
 * pages without running anything.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.SPEAKCHECK_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'reports',
  'screenshots',
);

/**
 * A made-up host name that resolves to 127.0.0.1 inside the test browser only: pages are opened the
 * way a person on another machine opens them (some UIs treat "localhost"/"127.0.0.1" specially),
 * while the traffic stays on loopback. Every other name fails to resolve, so even a request that
 * slipped past the request filter could not leave the machine.
 */
export const LOOPBACK_ALIAS = 'speakcheck.test';

/** Without these Chromium reaches for the network at start (updates, sync, field trials, QUIC probes). */
const CHROMIUM_ARGS = [
  `--host-resolver-rules=MAP ${LOOPBACK_ALIAS} 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE localhost`,
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Bound of every single wait (navigation, selector, click) inside a page test. */
export const PAGE_TIMEOUT_MS = 20_000;

/** What a page opened from disk may ask for and still work offline. */
const OFFLINE_SCHEMES = new Set(['file:', 'data:']);

/** Schemes that never leave the browser. */
const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:']);

export interface RecordedRequest {
  url: string;
  method: string;
  resourceType: string;
  /** Set when the request was stopped because it would have left the page's origin. */
  blocked: boolean;
}

export interface PageSession {
  page: Page;
  /** Every request the page made, in order (including blocked ones). */
  requests: RecordedRequest[];
  /** Uncaught exceptions in the page's scripts. */
  pageErrors: string[];
  /** Requests that got a 4xx/5xx answer or failed in the network stack (blocked ones excluded). */
  failedRequests: string[];
  /** Requests that would have left the page's origin. */
  externalRequests(): RecordedRequest[];
  /**
   * Every request for anything but a file:// or data: URL, blocked or not: a report opened from disk
   * must make none (it works offline: no CDN, no font or script host, no call home).
   */
  networkRequests(): string[];
  /** Full-page PNG at reports/screenshots/<name>.png; returns the path. */
  screenshot(name: string, o?: { fullPage?: boolean }): Promise<string>;
}

function chromiumMissing(): Error {
  return new Error(
    `Chromium not found at ${CHROMIUM_PATH}. The browser tests need Debian's chromium package ` +
      '(apt-get install -y chromium); set SPEAKCHECK_CHROMIUM to use another binary. ' +
      'They are not skipped: a page nobody opened is a page nobody checked.',
  );
}

/** file:// pages may load file:// resources; http pages only their own origin. */
export function isSameOrigin(pageUrl: string, requestUrl: string): boolean {
  const target = new URL(requestUrl);
  if (LOCAL_SCHEMES.has(target.protocol)) return true;
  const page = new URL(pageUrl);
  if (page.protocol === 'file:') return target.protocol === 'file:';
  return target.origin === page.origin;
}

/**
 * Opens `url` in a fresh Chromium profile, runs `fn`, then always closes the browser and removes
 * the profile. Throws (failing the test) if the page asked for anything outside its origin.
 */
export async function withPage<T>(
  url: string,
  fn: (session: PageSession) => Promise<T>,
  o: { viewport?: { width: number; height: number } } = {},
): Promise<T> {
  if (!existsSync(CHROMIUM_PATH)) throw chromiumMissing();
  const profile = await mkdtemp(join(tmpdir(), 'speakcheck-chromium-'));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: o.viewport ?? { width: 1280, height: 900 },
      timeout: PAGE_TIMEOUT_MS,
      // Nothing in these pages needs it, and it keeps the profile free of anything but this run.
      serviceWorkers: 'block',
    });
    const requests: RecordedRequest[] = [];
    const pageErrors: string[] = [];
    const failedRequests: string[] = [];
    // Decided per request against the URL the test opened: a page may not reach beyond it.
    await context.route('**/*', async (route) => {
      const request = route.request();
      const allowed = isSameOrigin(url, request.url());
      requests.push({
        url: request.url(),
        method: request.method(),
        resourceType: request.resourceType(),
        blocked: !allowed,
      });
      if (allowed) await route.continue();
      else await route.abort('blockedbyclient');
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) failedRequests.push(`${response.status()} ${response.url()}`);
    });
    page.on('requestfailed', (request) => {
      if (isSameOrigin(url, request.url())) {
        failedRequests.push(`${request.failure()?.errorText ?? 'failed'} ${request.url()}`);
      }
    });
    const session: PageSession = {
      page,
      requests,
      pageErrors,
      failedRequests,
      externalRequests: () => requests.filter((r) => r.blocked),
      networkRequests: () =>
        requests.map((r) => r.url).filter((u) => !OFFLINE_SCHEMES.has(new URL(u).protocol)),
      async screenshot(name, so = {}) {
        await mkdir(SCREENSHOT_DIR, { recursive: true });
        const path = join(SCREENSHOT_DIR, `${name}.png`);
        // Chromium now and then refuses a capture of a page not painted yet (just reloaded, a loaded
        // machine): "Unable to capture screenshot". The picture is the run's artifact, not what a test
        // asserts, so it is taken again after the next painted frame, twice at most.
        for (let attempt = 1; ; attempt++) {
          try {
            await page.screenshot({ path, fullPage: so.fullPage ?? false, timeout: PAGE_TIMEOUT_MS });
            return path;
          } catch (error) {
            if (attempt === 3 || !String(error).includes('Unable to capture screenshot')) throw error;
            await page.evaluate(
              'new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)))',
            );
          }
        }
      },
    };
    const externalReport = () => {
      const external = session.externalRequests();
      return external.length === 0
        ? ''
        : `${url} asked for ${external.length} resource(s) outside its origin (blocked):\n` +
            external.map((r) => `  ${r.method} ${r.url} (${r.resourceType})`).join('\n');
    };
    let result: T;
    try {
      await page.goto(url, { waitUntil: 'load' });
      result = await fn(session);
    } catch (error) {
      // A page that broke because something external was blocked should say so.
      const external = externalReport();
      if (external && error instanceof Error) error.message += `\n${external}`;
      throw error;
    }
    const external = externalReport();
    if (external) throw new Error(external);
    return result;
  } finally {
    await context?.close().catch(() => {});
    await rm(profile, { recursive: true, force: true });
  }
}
