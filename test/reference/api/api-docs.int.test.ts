/**
 * The reference stack's API documentation as client developers open it: Swagger UI at
 * /v1/speak/docs lists every operation of openapi.json, Redoc at /v1/speak/redoc shows them in its
 * sidebar; neither asks anything of the internet. The stack runs as `speakcheck serve --port 0`
 * and the pages are opened under a non-loopback host name (mapped to 127.0.0.1 inside the browser),
 * as from another machine: Swagger UI only skips its online validator badge for "localhost".
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type EmbeddedStack, startEmbeddedStack } from '../../../src/stack/embedded.ts';
import { LOOPBACK_ALIAS, withPage } from '../../support/browser.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Operation {
  method: string;
  path: string;
  summary: string;
  operationId?: string;
}

let stack: EmbeddedStack | undefined;
let pageBase = '';
let operations: Operation[] = [];
let title = '';

beforeAll(async () => {
  stack = await startEmbeddedStack({ extraArgs: ['--workers', '1'], readyTimeoutMs: 90_000 });
  const port = new URL(stack.baseUrl).port;
  pageBase = `http://${LOOPBACK_ALIAS}:${port}`;
  const response = await fetch(`${stack.baseUrl}/v1/speak/openapi.json`, {
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  const document = (await response.json()) as {
    info: { title: string };
    paths: Record<string, Record<string, { summary?: string; operationId?: string }>>;
  };
  title = document.info.title;
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? '',
        operationId: op.operationId,
      })),
  );
  // The contract has auth, models, voices, takes, audio, version and websocket operations.
  expect(operations.length).toBeGreaterThan(10);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const key = (o: { method: string; path: string }) => `${o.method} ${o.path}`;

describe('API documentation pages', () => {
  test('Swagger UI at /v1/speak/docs lists every operation of openapi.json, with no external request', async () => {
    await withPage(`${pageBase}/v1/speak/docs`, async (s) => {
      await s.page.locator('.swagger-ui .info .title').first().waitFor({ state: 'visible' });
      await expect
        .poll(() => s.page.locator('.opblock').count(), { timeout: 15_000 })
        .toBe(operations.length);
      const shown = await s.page.$$eval('.opblock', (blocks) =>
        blocks.map((b) => ({
          method: (b.querySelector('.opblock-summary-method')?.textContent ?? '').trim(),
          path: b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
          visible: b.getBoundingClientRect().height > 0,
        })),
      );
      expect(shown.map(key).sort()).toEqual(operations.map(key).sort());
      expect(shown.filter((b) => !b.visible).map(key)).toEqual([]);
      await expect(s.page.locator('.swagger-ui .info .title').first().textContent()).resolves.toContain(
        title,
      );
      expect(s.pageErrors).toEqual([]);
      expect(s.failedRequests).toEqual([]);
      await s.screenshot('api-docs-swagger-ui', { fullPage: true });
    });
  });

  test('Redoc at /v1/speak/redoc renders its sidebar with every operation, with no external request', async () => {
    await withPage(`${pageBase}/v1/speak/redoc`, async (s) => {
      const sidebar = s.page.locator('.menu-content');
      await sidebar.waitFor({ state: 'visible' });
      // Sidebar entries of operations: "<method badge><summary>", keyed by operationId where the
      // document gives one (`tag/<tag>/operation/<id>`), else by path and method.
      const entries = await s.page.$$eval(
        '.menu-content li[data-item-id*="/paths/"], .menu-content li[data-item-id*="/operation/"]',
        (items) =>
          items.map((li) => ({
            id: li.getAttribute('data-item-id') ?? '',
            text: li.firstElementChild?.textContent ?? '',
          })),
      );
      const pointer = (path: string) => path.replace(/~/g, '~0').replace(/\//g, '~1');
      for (const op of operations) {
        const entry = entries.find((e) =>
          op.operationId
            ? e.id.endsWith(`/operation/${op.operationId}`)
            : e.id.endsWith(`/paths/${pointer(op.path)}/${op.method.toLowerCase()}`),
        );
        expect(entry, `sidebar entry for ${key(op)}`).toBeDefined();
        expect(entry!.text).toContain(op.summary);
      }
      expect(entries).toHaveLength(operations.length);
      // A person sees the tag groups; opening one shows its operations.
      const firstTag = sidebar
        .locator('li[data-item-id^="tag/"]:not([data-item-id*="/paths/"]):not([data-item-id*="/operation/"])')
        .first();
      await expect(firstTag.isVisible()).resolves.toBe(true);
      await firstTag.click();
      const firstOperation = operations[0]!;
      await sidebar.getByText(firstOperation.summary, { exact: true }).first().waitFor({ state: 'visible' });
      await expect(
        s.page.locator('h2', { hasText: firstOperation.summary }).first().isVisible(),
      ).resolves.toBe(true);
      expect(s.pageErrors).toEqual([]);
      expect(s.failedRequests).toEqual([]);
      await s.screenshot('api-docs-redoc');
    });
  });
});
