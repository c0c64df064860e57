/**
 * compare.html as a reader sees it, shared by the perf page tests: the key-figure panel, which must
 * come before every chart and table and draw each side's interval as a whisker.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export interface KeyRow {
  figure: string;
  verdict: string;
  pill: string;
  pillBackground: string;
  whiskers: number;
}

/** The key-figure panel as drawn: it comes before every chart and table, each row with its whiskers. */
export async function keyPanel(page: Page): Promise<KeyRow[]> {
  const panel = page.locator('.key-panel');
  await expect(panel.isVisible()).resolves.toBe(true);
  // First in reading order: above every chart and every other table, and inside the first window.
  const panelTop = (await panel.boundingBox())!.y;
  expect(panelTop).toBeLessThan(800);
  const others = await page
    .locator('figure, details.group')
    .evaluateAll((els) =>
      els.map(
        (e) => (e as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top,
      ),
    );
  expect(others.length).toBeGreaterThan(0);
  for (const top of others) expect(top).toBeGreaterThan(panelTop);
  return page.locator('.key-panel tr.key-row').evaluateAll((rows) =>
    rows.map((r) => {
      const row = r as unknown as {
        dataset: { verdict: string };
        querySelector(s: string): { textContent: string } | null;
        querySelectorAll(s: string): { length: number };
      };
      const pill = row.querySelector('.pill') as unknown as { textContent: string };
      const g = globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } };
      return {
        figure: row.querySelector('td.fig')?.textContent ?? '',
        verdict: row.dataset.verdict,
        pill: pill.textContent,
        pillBackground: g.getComputedStyle(pill).backgroundColor,
        // A drawn interval: the whisker line of each side (a side whose runs spread has one).
        whiskers: row.querySelectorAll('svg line.whisker').length,
      };
    }),
  );
}

/** The regression colour of compare.html (pill background, verdict line). */
export const REGRESSION_RED = 'rgb(217, 48, 37)';
