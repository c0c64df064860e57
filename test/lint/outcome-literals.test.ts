/**
 * Issue 48, "done when": what a verdict means is decided in two modules only — the standing
 * (src/verdict/standing.ts: held, failed, blocked, not judged, observed; whether it gates; what a
 * conclusion or a test's state counts as) and the words (src/verdict/words.ts: the report's
 * outcome names, labels, colours and sentences). Everywhere else in src/ asks them. This test greps
 * src/ for a comparison or a switch on an outcome literal (`=== 'failed'`, `case 'blocked':`,
 * `.has('passed')`, a Set or array of outcome literals tested for membership) and fails on any
 * outside those two modules and the few allowed below, each with its reason.
 *
 * Constructing a value (`{ kind: 'violated', … }`), a union type, a column header and the words of
 * a sentence are not decisions: the patterns do not match them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The outcome vocabulary: standing groups, labels, conclusion kinds, test states, the plain verdict.
 * Not `harness-bug`: the harness's disposition of an error (src/harness/disposition.ts) names it
 * too, and turning a disposition into a conclusion is that module's switch.
 */
const LITERALS = [
  'held',
  'failed',
  'blocked',
  'not-judged',
  'observed',
  'passed',
  'info',
  'violated',
  'not-concluded',
  'not-observed',
  'not-applicable',
  'skipped',
  'expected-failure',
  'non-strict',
  'CONFORMS',
];

/** The two modules that may decide on them. */
const DECIDERS = new Set(['src/verdict/standing.ts', 'src/verdict/words.ts']);

/** Decisions elsewhere that are allowed, each with why: file and the line's text (trimmed, a prefix). */
const ALLOWED: readonly { file: string; line: string; why: string }[] = [
  {
    file: 'src/harness/covers.ts',
    line: "const conclude = unmet.conclusion === 'not-applicable'",
    why: "a requirement's precondition declares which conclusion it makes when unmet: choosing the constructor, not judging one",
  },
  {
    file: 'src/report/report-version.ts',
    line: "const was = r.status === 'expected-failure'",
    why: 'the upgrader of reports written before version 3 reads their old status strings once, to build conclusions',
  },
  {
    file: 'src/report/report-version.ts',
    line: "...(r.status === 'expected-failure'",
    why: 'the upgrader of reports written before version 3 reads their old status strings once, to build conclusions',
  },
];

const L = `'(${LITERALS.join('|')})'`;
/** Each way code decides on a literal; multi-line where an array or Set literal may span lines. */
const PATTERNS: readonly { name: string; re: RegExp }[] = [
  { name: 'comparison', re: new RegExp(`[!=]==?\\s*${L}|${L}\\s*[!=]==?`, 'g') },
  { name: 'case', re: new RegExp(`\\bcase\\s+${L}\\s*:`, 'g') },
  { name: 'membership', re: new RegExp(`\\.(?:has|includes|indexOf)\\(\\s*${L}`, 'g') },
  {
    name: 'array tested',
    re: new RegExp(`\\[[^\\]\\[]*${L}[^\\]\\[]*\\]\\s*\\.(?:includes|indexOf|some)\\(`, 'g'),
  },
  { name: 'Set of outcomes', re: new RegExp(`new Set(?:<[^>]*>)?\\(\\s*\\[[^\\]]*${L}`, 'g') },
];

interface Hit {
  file: string;
  line: number;
  text: string;
  pattern: string;
}

/** Every decision on an outcome literal in one file's text. */
function decisionsIn(file: string, source: string): Hit[] {
  const lines = source.split('\n');
  const lineOf = (index: number) => source.slice(0, index).split('\n').length;
  return PATTERNS.flatMap(({ name, re }) =>
    [...source.matchAll(re)].map((m) => {
      const line = lineOf(m.index);
      return { file, line, text: lines[line - 1]!.trim(), pattern: name };
    }),
  );
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return /\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const allowed = (h: Hit) => ALLOWED.some((a) => a.file === h.file && h.text.startsWith(a.line));

describe('outcome literals are decided on only in the standing and the words (issue 48)', () => {
  test('the detector catches each kind of decision and lets constructors, types and words be', () => {
    const caught = [
      "if (state === 'failed') return;",
      "if ('blocked' !== group) return;",
      "switch (c.kind) {\n  case 'violated':\n    return 1;\n}",
      "const HELD = new Set<Outcome>(['passed', 'info']);",
      "return ['failed',\n  'blocked', 'not-judged'].includes(outcomeOf(r));",
      "if (held.has('passed')) return;",
      "if (words === 'CONFORMS') return '';",
    ];
    for (const snippet of caught) expect(decisionsIn('x.ts', snippet), snippet).not.toEqual([]);
    const free = [
      "record(s, id, { kind: 'held' });",
      "export type TestState = 'passed' | 'failed' | 'skipped' | 'not-concluded';",
      "const header = ['area', 'passed', 'failed', 'blocked'];",
      "lines.push('failed (3):', 'blocked by: the login');",
      "words: expected ? 'x' : CONFORMS,",
    ];
    for (const snippet of free) expect(decisionsIn('x.ts', snippet), snippet).toEqual([]);
  });

  test('src/ decides on them in src/verdict/standing.ts and src/verdict/words.ts only', () => {
    const hits = tsFiles(join(ROOT, 'src'))
      .map((path) => ({ file: relative(ROOT, path).replace(/\\/g, '/'), path }))
      .filter(({ file }) => !DECIDERS.has(file))
      .flatMap(({ file, path }) => decisionsIn(file, readFileSync(path, 'utf8')))
      .filter((h) => !allowed(h))
      .map((h) => `${h.file}:${h.line} (${h.pattern}) ${h.text}`);
    expect(hits, 'ask src/verdict/standing.ts (decisions) or src/verdict/words.ts (words) instead').toEqual(
      [],
    );
  });

  test('every allowed exception still exists (a stale entry would allow the next one silently)', () => {
    for (const a of ALLOWED) {
      const hits = decisionsIn(a.file, readFileSync(join(ROOT, a.file), 'utf8'));
      expect(
        hits.some((h) => h.text.startsWith(a.line)),
        `${a.file}: ${a.line}`,
      ).toBe(true);
    }
  });
});
