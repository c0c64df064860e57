/**
 * The live lines of `speakcheck run` while the suites run (issue 41): a ✗ line per failed test and
 * one row per area, printed once, when every file holding that area's tests has ended. Rows are
 * areas as `--only` and the final table name them: an area of two files (webhooks,
 * webhooks-settled) is one row, not two; the lifetimes file (suites/expiry.spec.ts) is no area, its
 * tests count in the areas of the requirements they judge. A failure the expect file lists is
 * marked expected, on its ✗ line and in its row.
 *
 * Plain data in, lines out: the vitest reporter (conformance-reporter.ts) feeds it.
 */
import { EXPIRY_AREAS } from '../harness/suite-files.ts';
import { AREAS } from '../requirements/types.ts';
import type { Conclusions } from '../verdict/conclusion.ts';
import {
  isAgainst,
  isNotConcluded,
  type RunnerState,
  testFailed,
  testPassed,
  testSkipped,
  unfinished,
} from '../verdict/standing.ts';

export interface LiveTest {
  /** The test's full name, as the ✗ line shows it. */
  name: string;
  state: Exclude<RunnerState, 'not-concluded'>;
  requirements: readonly string[];
  /** What the test concluded per requirement (meta.conclusions), when it said. */
  conclusions?: Conclusions;
  /** A failed test's first error line. */
  message?: string;
}

interface AreaCounts {
  passed: number;
  failed: number;
  expected: number;
  /** Failed tests that concluded nothing (concludedNothing): not failures. */
  notConcluded: number;
  skipped: number;
  ms: number;
  fileError: boolean;
}

/** `suites/auth.spec.ts` → auth; `suites/websocket/streaming.spec.ts` → websocket; `suites/webhooks-settled.spec.ts` → webhooks. */
export function areaOfFile(file: string): string {
  const inSuites = file.replace(/\\/g, '/').replace(/^.*?suites\//, '');
  const first = inSuites.split('/')[0] ?? inSuites;
  return first.replace(/\.spec\.ts$/, '').replace(/[-.].*$/, '');
}

function isArea(name: string): boolean {
  return (AREAS as readonly string[]).includes(name);
}

/** What the live lines need of a requirement of the catalogue. */
export interface LiveRequirement {
  area: string;
  level: string;
}

/**
 * Whether a failed test failed only where the expect file said it would: every requirement it
 * found broken or blocked (all of its requirements when it named none) is listed. INFO ones never
 * gate and no expect file lists them: a blocked observation beside a listed failure changes nothing.
 */
export function failureExpected(
  test: Pick<LiveTest, 'requirements' | 'conclusions'>,
  expected: ReadonlySet<string>,
  requirementOf: (id: string) => LiveRequirement | undefined = () => undefined,
): boolean {
  if (expected.size === 0) return false;
  const broken = Object.entries(test.conclusions ?? {})
    .filter(([, list]) => list.some(isAgainst))
    .map(([id]) => id);
  const ids = (broken.length > 0 ? broken : test.requirements).filter(
    (id) => requirementOf(id)?.level !== 'INFO',
  );
  return ids.length > 0 && ids.every((id) => expected.has(id));
}

/**
 * A failed test that concluded nothing against the server: it did not finish (its time bound ran
 * out, the server throttled, the run was paced or stopped) and found no violation. The
 * verdict counts its requirements not concluded, never failed; the live line and the area row say
 * the same (issue 51 item 6: ✗ and "1 failed" beside a summary of "0 failed").
 */
export function concludedNothing(test: Pick<LiveTest, 'state' | 'conclusions'>): boolean {
  // The reporter's rule for a test's state (src/verdict/standing.ts testStateOf): the same test, the same word.
  return testFailed(test) && unfinished(test.conclusions ?? {});
}

export class LiveProgress {
  private readonly counts = new Map<string, AreaCounts>();
  /** Per area, the files still running that hold its tests (none planned: a row per file end). */
  private readonly pending = new Map<string, Set<string>>();
  private readonly printed = new Set<string>();
  private expectedTests = 0;
  private saidThrottled = false;

  constructor(
    private readonly log: (line: string) => void,
    /** The requirement ids the expect file lists (current entries only). */
    private readonly expected: ReadonlySet<string>,
    /** A requirement's area and level (the catalogue's): the area of a lifetimes test, INFO or not. */
    private readonly requirementOf: (id: string) => LiveRequirement | undefined,
    /** `--only`: the areas the run selected (empty: every area). */
    private readonly only: readonly string[] = [],
  ) {}

  /**
   * The files the run is about to run: which areas wait for which files. The lifetimes file holds
   * back the rows of auth, audio and websocket until its waits end (with --expiry full, up to the
   * websocket URL's hour): meanwhile their ✗ lines print as they fail and the countdown line says
   * what is waited out; a second, partial row per area would be the puzzle this file removes.
   */
  plan(files: readonly string[]): void {
    for (const file of files)
      for (const area of this.areasOfFile(file)) {
        const set = this.pending.get(area) ?? new Set<string>();
        set.add(file);
        this.pending.set(area, set);
      }
  }

  /**
   * The server throttled: said once, the first time a file ends after a 429 or 503, so pacing by
   * the server's limit is seen while it happens, not only in the timing line at the end.
   */
  throttled(answered429: number, answered503: number): void {
    if (this.saidThrottled || answered429 + answered503 === 0) return;
    this.saidThrottled = true;
    const answers = [
      ...(answered429 > 0 ? [`429 on ${answered429}`] : []),
      ...(answered503 > 0 ? [`503 on ${answered503}`] : []),
    ].join(', ');
    this.log(
      `  … the server throttles (${answers} request${answered429 + answered503 === 1 ? '' : 's'} so far): the run now paces itself to its limit (back-pressure, never a verdict)`,
    );
  }

  /** A test failed: its ✗ line, marked when the expect file lists what it found. */
  failed(file: string, test: LiveTest): void {
    if (concludedNothing(test)) {
      const causes = [
        ...new Set(
          Object.values(test.conclusions ?? {})
            .flat()
            .filter(isNotConcluded)
            .map((c) => c.cause),
        ),
      ];
      this.log(
        `  … ${this.areaOf(file, test)} › ${test.name}: not concluded (${causes.join(', ')}): ${test.message ?? 'did not finish'}`,
      );
      return;
    }
    const mark = failureExpected(test, this.expected, this.requirementOf) ? '(expected) ' : '';
    this.log(`  ✗ ${mark}${this.areaOf(file, test)} › ${test.name}: ${test.message ?? 'failed'}`);
  }

  /** A file ended: its tests counted in their areas, and the rows of the areas now complete. */
  fileEnded(file: string, tests: readonly LiveTest[], durationMs: number, fileError: boolean): void {
    const own = areaOfFile(file);
    for (const test of tests) {
      const counts = this.area(this.areaOf(file, test));
      if (testPassed(test)) counts.passed++;
      if (testSkipped(test)) counts.skipped++;
      if (concludedNothing(test)) counts.notConcluded++;
      else if (testFailed(test)) {
        counts.failed++;
        if (failureExpected(test, this.expected, this.requirementOf)) {
          counts.expected++;
          this.expectedTests++;
        }
      }
    }
    // A file of its own area carries its time and its load error; the lifetimes file's waits are
    // no area's time.
    if (isArea(own)) {
      const counts = this.area(own);
      counts.ms += durationMs;
      counts.fileError ||= fileError;
    }
    const done: string[] = [];
    for (const [area, files] of this.pending) {
      files.delete(file);
      if (files.size === 0) done.push(area);
    }
    if (!this.pending.has(own) && isArea(own)) done.push(own);
    for (const area of done) this.printRow(area);
  }

  /** The rows not printed yet (a stopped run): what ended of them. */
  flush(): void {
    for (const area of this.counts.keys()) this.printRow(area);
  }

  /** Failed tests whose failure the expect file lists. */
  expectedFailedTests(): number {
    return this.expectedTests;
  }

  private printRow(area: string): void {
    const counts = this.counts.get(area);
    this.pending.delete(area);
    if (!counts || this.printed.has(area)) return;
    this.printed.add(area);
    const expected = counts.expected > 0 ? ` (${counts.expected} expected)` : '';
    // Only when there are some: the row of every other area keeps its columns.
    const notConcluded =
      counts.notConcluded > 0 ? ` ${String(counts.notConcluded).padStart(3)} not concluded` : '';
    this.log(
      `  ${area.padEnd(10)} ${String(counts.passed).padStart(3)} passed ${String(counts.failed).padStart(3)} failed${expected}${notConcluded} ${String(
        counts.skipped,
      ).padStart(3)} skipped  ${(counts.ms / 1000).toFixed(1)} s${counts.fileError ? '  (file error)' : ''}`,
    );
  }

  private area(name: string): AreaCounts {
    const existing = this.counts.get(name);
    if (existing) return existing;
    const fresh = { passed: 0, failed: 0, expected: 0, notConcluded: 0, skipped: 0, ms: 0, fileError: false };
    this.counts.set(name, fresh);
    return fresh;
  }

  /** A test's area: its file's, or for a file that is no area, its first requirement's. */
  private areaOf(file: string, test: Pick<LiveTest, 'requirements'>): string {
    const own = areaOfFile(file);
    if (isArea(own)) return own;
    for (const id of test.requirements) {
      const area = this.requirementOf(id)?.area;
      if (area) return area;
    }
    return own;
  }

  /** The areas whose row waits for this file. */
  private areasOfFile(file: string): string[] {
    const own = areaOfFile(file);
    if (isArea(own)) return [own];
    if (own === 'expiry') return EXPIRY_AREAS.filter((a) => this.only.length === 0 || this.only.includes(a));
    return [];
  }
}
