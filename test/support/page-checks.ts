/**
 * Checks of what a person sees, shared by the page tests. axe-core is not installed here (and no new
 * dependency is added), so accessibility is a minimal check of its own: the page has a language, a
 * main landmark and one h1; every form control has a label; every inline SVG picture has a name;
 * and the text of every visible element contrasts with its background (WCAG AA: 4.5, 3 for large).
 * Words inside headers are checked to stay whole on one line (no mid-word break).
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** The page's window and DOM, typed loosely: the project's tsconfig has no DOM lib. */
// biome-ignore lint/suspicious/noExplicitAny: the browser side of page.evaluate
type Any = any;

export interface A11yProblem {
  rule: string;
  where: string;
  detail: string;
}

export async function accessibilityProblems(page: Page): Promise<A11yProblem[]> {
  return page.evaluate(() => {
    const g = globalThis as Any;
    const doc = g.document;
    const problems: { rule: string; where: string; detail: string }[] = [];
    const where = (e: Any) =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    if (!doc.documentElement.lang) problems.push({ rule: 'html-lang', where: 'html', detail: 'no lang' });
    if (!doc.querySelector('main,[role=main]'))
      problems.push({ rule: 'landmark-main', where: 'body', detail: 'no main' });
    const h1 = doc.querySelectorAll('h1').length;
    if (h1 !== 1) problems.push({ rule: 'one-h1', where: 'body', detail: `${h1} h1` });
    for (const c of doc.querySelectorAll('input,select,textarea')) {
      const named =
        c.closest('label') ||
        (c.id && doc.querySelector(`label[for="${c.id}"]`)) ||
        c.getAttribute('aria-label');
      if (!named) problems.push({ rule: 'label', where: where(c), detail: 'form control without a label' });
    }
    for (const svg of doc.querySelectorAll('svg')) {
      if (svg.closest('svg') !== svg) continue;
      const named = svg.getAttribute('aria-label') || svg.querySelector(':scope > title');
      if (!named) problems.push({ rule: 'svg-name', where: where(svg), detail: 'picture without a name' });
    }
    const rgba = (s: string) => {
      const m = s.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 0];
      return { r: m[0]!, g: m[1]!, b: m[2]!, a: m[3] ?? 1 };
    };
    const lum = (c: { r: number; g: number; b: number }) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
    };
    const background = (e: Any) => {
      for (let p = e; p; p = p.parentElement) {
        const bg = rgba(g.getComputedStyle(p).backgroundColor);
        if (bg.a > 0.5) return bg;
      }
      return { r: 255, g: 255, b: 255, a: 1 };
    };
    for (const e of doc.body.querySelectorAll('*')) {
      if (e.closest('svg')) continue;
      const ownText = [...e.childNodes].some((n: Any) => n.nodeType === 3 && n.textContent.trim());
      if (!ownText) continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const style = g.getComputedStyle(e);
      const fg = lum(rgba(style.color));
      const bg = lum(background(e));
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      const size = Number.parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) {
        problems.push({
          rule: 'contrast',
          where: where(e),
          detail: `${ratio.toFixed(2)}:1 (${style.color} on background)`,
        });
      }
    }
    return problems;
  });
}

/** Header words (th, h1–h3 and the given selectors) that the layout broke across two lines. */
export async function brokenHeaderWords(page: Page, selector = 'th,h1,h2,h3'): Promise<string[]> {
  return page.evaluate((sel) => {
    const doc = (globalThis as Any).document;
    const broken: string[] = [];
    for (const e of doc.querySelectorAll(sel)) {
      if (e.getBoundingClientRect().width === 0) continue;
      const walker = doc.createTreeWalker(e, 4);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text: string = n.textContent;
        for (const m of text.matchAll(/[^\s/·:,()]+/g)) {
          const range = doc.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].map((r: Any) => Math.round(r.top)));
          if (tops.size > 1) broken.push(`${e.tagName.toLowerCase()}: "${m[0]}"`);
        }
      }
    }
    return broken;
  }, selector);
}

/** axe-core's browser bundle, injected into the page under test as an inline script (no request). */
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * Rules axe rates below "serious" that these pages must pass all the same: a reader of a saved report
 * finds its way by the language, the main landmark and the one top heading.
 */
const ALSO_REQUIRED = new Set(['html-has-lang', 'landmark-one-main', 'page-has-heading-one']);

export interface AxeViolation {
  rule: string;
  impact: string;
  help: string;
  /** Up to five offending elements: their selector and what axe says is wrong with each. */
  nodes: string[];
}

/**
 * axe-core (WCAG 2.x A/AA and best-practice rules) run on the page as it is now: its violations of
 * impact serious or critical, plus any of ALSO_REQUIRED. With `openDetails` every collapsed
 * <details> is opened first, so the evidence, the contract and the grouped lists are checked too.
 */
export async function axeViolations(page: Page, o: { openDetails?: boolean } = {}): Promise<AxeViolation[]> {
  if (o.openDetails) {
    await page.evaluate(() => {
      for (const d of (globalThis as Any).document.querySelectorAll('details')) d.open = true;
    });
  }
  const loaded = await page.evaluate(() => typeof (globalThis as Any).axe === 'object');
  if (!loaded) await page.addScriptTag({ path: AXE_SCRIPT });
  const found: AxeViolation[] = await page.evaluate(async () => {
    const g = globalThis as Any;
    const results = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return results.violations.map((v: Any) => ({
      rule: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n: Any) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical' || ALSO_REQUIRED.has(v.rule));
}
