/**
 * The page helper itself: an external request fails the test (and is stopped before it leaves),
 * same-origin and file:// requests do not, screenshots land in reports/screenshots/, a page's
 * requests beyond file:// and data: are listed, and the axe-core check finds what it must.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { isSameOrigin, SCREENSHOT_DIR, withPage } from './browser.ts';
import { axeViolations } from './page-checks.ts';

const dir = mkdtempSync(join(tmpdir(), 'speakcheck-browser-helper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('browser helper', () => {
  test('origin rule: own origin, file:// for files, data:/blob:; nothing else', () => {
    expect(isSameOrigin('http://127.0.0.1:8080/docs', 'http://127.0.0.1:8080/openapi.json')).toBe(true);
    expect(isSameOrigin('http://127.0.0.1:8080/docs', 'http://127.0.0.1:8081/openapi.json')).toBe(false);
    expect(isSameOrigin('http://127.0.0.1:8080/docs', 'https://cdn.redoc.ly/logo.svg')).toBe(false);
    expect(isSameOrigin('file:///tmp/r/conformance.html', 'file:///tmp/r/style.css')).toBe(true);
    expect(isSameOrigin('file:///tmp/r/conformance.html', 'http://127.0.0.1:1/x')).toBe(false);
    expect(isSameOrigin('file:///tmp/r/conformance.html', 'data:image/png;base64,AAAA')).toBe(true);
  });

  test('a page that asks for an external image and script fails, naming both', async () => {
    const page = join(dir, 'external.html');
    writeFileSync(
      page,
      '<!doctype html><title>x</title><p>hello</p><img src="https://cdn.example.com/logo.svg">' +
        '<script src="http://127.0.0.2:9/tracker.js"></script>',
    );
    const run = withPage(pathToFileURL(page).href, async (s) => {
      await expect(s.page.locator('p').textContent()).resolves.toBe('hello');
    });
    await expect(run).rejects.toThrow(/asked for 2 resource\(s\) outside its origin/);
    await expect(run).rejects.toThrow('GET https://cdn.example.com/logo.svg (image)');
    await expect(run).rejects.toThrow('GET http://127.0.0.2:9/tracker.js (script)');
  });

  test('a self-contained page passes, records its own request, and is screenshotted', async () => {
    const page = join(dir, 'local.html');
    writeFileSync(
      page,
      '<!doctype html><title>local</title><p>hello</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">',
    );
    const requests = await withPage(pathToFileURL(page).href, async (s) => {
      await s.screenshot('browser-helper-self-check');
      return s.requests;
    });
    expect(requests.filter((r) => r.url.startsWith('file:')).map((r) => r.url)).toEqual([
      pathToFileURL(page).href,
    ]);
    expect(requests.every((r) => !r.blocked)).toBe(true);
    expect(existsSync(join(SCREENSHOT_DIR, 'browser-helper-self-check.png'))).toBe(true);
    rmSync(join(SCREENSHOT_DIR, 'browser-helper-self-check.png'));
  });

  test('a page opened from disk that asks for an http URL is listed by networkRequests()', async () => {
    const page = join(dir, 'phones-home.html');
    // Loopback, but not file:// or data:: a report that needs a server does not work offline.
    writeFileSync(page, '<!doctype html><title>x</title><img src="http://127.0.0.1:9/pixel.gif">');
    let listed: string[] = [];
    const run = withPage(pathToFileURL(page).href, async (s) => {
      await s.page.waitForLoadState('load');
      listed = s.networkRequests();
    });
    // Blocked before it left, and failing the page (outside a file:// page's origin).
    await expect(run).rejects.toThrow(/asked for 1 resource\(s\) outside its origin/);
    expect(listed).toEqual(['http://127.0.0.1:9/pixel.gif']);
  });

  test('axe-core: an unlabeled field, low-contrast text and a keyboard-unreachable scroll box are found', async () => {
    const page = join(dir, 'inaccessible.html');
    writeFileSync(
      page,
      '<!doctype html><html lang="en"><title>x</title><main><h1>x</h1>' +
        '<input type="text"><p style="color:#bbb;background:#fff">faint text</p>' +
        `<details><summary>more</summary><pre style="max-height:3em;overflow:auto">${'line\n'.repeat(40)}</pre></details>` +
        '</main></html>',
    );
    const found = await withPage(pathToFileURL(page).href, async (s) => ({
      closed: (await axeViolations(s.page)).map((v) => v.rule),
      opened: (await axeViolations(s.page, { openDetails: true })).map((v) => v.rule),
    }));
    expect(found.closed.sort()).toEqual(['color-contrast', 'label']);
    // The scroll box inside the collapsed <details> is only checked once it is opened.
    expect(found.opened.sort()).toEqual(['color-contrast', 'label', 'scrollable-region-focusable']);
  });
});
