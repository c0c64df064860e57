/**
 * The verdict of scripts/flake-check.sh: reads <dir>/run-<i>/conformance.json (and run-<i>.exit) of
 * each run and prints every test that failed at least once, with its count and first message; a run
 * that wrote no report (exit 3: could not run) is a failure of its own. Exit 0 only when none failed.
 *
 *   node --import tsx scripts/flake-summary.ts <dir> <runs>
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ReportTest {
  key: string;
  state: string;
  errors: Array<{ message?: string } | string>;
}

const [dir, runsText] = process.argv.slice(2);
const runs = Number(runsText);
if (!dir || !Number.isInteger(runs) || runs < 1) {
  process.stderr.write('usage: flake-summary.ts <dir> <runs>\n');
  process.exit(2);
}

const failures = new Map<string, { count: number; runs: number[]; first: string }>();
const brokenRuns: string[] = [];
let testsSeen = 0;
for (let i = 1; i <= runs; i++) {
  const report = join(dir, `run-${i}`, 'conformance.json');
  const exit = existsSync(join(dir, `run-${i}.exit`))
    ? readFileSync(join(dir, `run-${i}.exit`), 'utf8').trim()
    : '?';
  if (!existsSync(report)) {
    brokenRuns.push(`run ${i}: no conformance.json (exit ${exit}; see ${join(dir, `run-${i}.log`)})`);
    continue;
  }
  const tests = (JSON.parse(readFileSync(report, 'utf8')) as { tests: ReportTest[] }).tests;
  testsSeen = Math.max(testsSeen, tests.length);
  for (const test of tests) {
    if (test.state !== 'failed') continue;
    const entry = failures.get(test.key) ?? { count: 0, runs: [], first: '' };
    entry.count += 1;
    entry.runs.push(i);
    if (!entry.first) {
      const error = test.errors[0];
      entry.first = (typeof error === 'string' ? error : (error?.message ?? ''))
        .split('\n')[0]!
        .slice(0, 300);
    }
    failures.set(test.key, entry);
  }
  if (exit !== '0' && ![...tests].some((t) => t.state === 'failed')) {
    brokenRuns.push(`run ${i}: exit ${exit} although no test failed (see ${join(dir, `run-${i}.log`)})`);
  }
}

const lines = [`flake check: ${runs} run(s), ${testsSeen} tests per run, reports in ${dir}`];
for (const line of brokenRuns) lines.push(`  ${line}`);
for (const [key, f] of [...failures].sort((a, b) => b[1].count - a[1].count)) {
  lines.push(`  FAILED ${f.count}/${runs} (runs ${f.runs.join(',')}): ${key}\n      ${f.first}`);
}
lines.push(
  failures.size === 0 && brokenRuns.length === 0
    ? `flake check: 0/${runs} runs had a failing test`
    : `flake check: ${failures.size} test(s) failed at least once; ${brokenRuns.length} run(s) broken`,
);
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(failures.size === 0 && brokenRuns.length === 0 ? 0 : 1);
