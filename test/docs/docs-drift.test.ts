/**
 * Docs that cannot drift from the code (issue 41): every markdown file of the repository is read and
 * what it states that the code decides is checked against the code.
 * - Options: each `--flag` is an option of a speakcheck command (commander's, every command), or a
 *   flag of another tool named below; each `SPEAK_*` variable is one the code reads or writes.
 * - Exit codes: README's table is the one table (test/cli/exit-codes.test.ts checks it against
 *   src/exit-codes.ts); no other document holds one, and every "exit N" names a code that exists.
 * - Counts: "J of M MUST" / "of S SHOULD" / "P/M MUST" take M and S from the catalogue, "N
 *   requirements" and "N security checks" too; a `--max-time` default is one of the code's.
 * - The acceptance run's length is said by the lifetimes it waits out and --max-time, not in minutes
 *   (it was "about an hour", "about 61 minutes" and "up to about 70 minutes" in three places).
 * - Issue 51's drift: suite files at a time (the docs said four, the run printed 6); the verdict
 *   words quoted (README quoted lenient's `NO MUST FAILED` for strict); every command's exit codes
 *   in the one table (compare kept its own); `--help` listing a number once; install and test
 *   durations stated with the machine they were measured on.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { registerBench } from '../../src/cli/commands/bench.ts';
import { registerCompare } from '../../src/cli/commands/compare.ts';
import { registerExpect } from '../../src/cli/commands/expect.ts';
import { registerLoad } from '../../src/cli/commands/load.ts';
import { registerPerf } from '../../src/cli/commands/perf.ts';
import { registerRerun } from '../../src/cli/commands/rerun.ts';
import { registerRun } from '../../src/cli/commands/run.ts';
import { registerServe } from '../../src/cli/commands/serve.ts';
import { registerWorker } from '../../src/cli/commands/worker.ts';
import { DEFAULT_MAX_TIME_S, FULL_EXPIRY_MAX_TIME_S } from '../../src/config/options.ts';
import { EXIT, EXIT_TABLE_BEGIN, EXIT_TABLE_END, renderExitCodeTable } from '../../src/exit-codes.ts';
import { LOCAL_SUITE_WORKERS, REMOTE_SUITE_WORKERS } from '../../src/harness/suite-workers.ts';
import { catalogue } from '../../src/requirements/index.ts';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

const SKIPPED_DIRS = new Set(['node_modules', '.git', '.cache', 'dist', 'reports']);

function files(dir: string, wanted: (name: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED_DIRS.has(name) ? [] : files(path, wanted);
    return wanted(name) ? [path] : [];
  });
}

const docs = files(REPO_ROOT, (name) => name.endsWith('.md')).map((path) => ({
  file: relative(REPO_ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

/** Each match of `pattern` in the docs, with the file and line it is on. */
function occurrences(pattern: RegExp): { where: string; match: RegExpMatchArray }[] {
  return docs.flatMap(({ file, text }) =>
    [...text.matchAll(pattern)].map((match) => ({
      where: `${file}:${text.slice(0, match.index).split('\n').length}`,
      match,
    })),
  );
}

/** Every long option of every speakcheck command, from commander as the commands register them. */
function speakcheckFlags(): Set<string> {
  const program = new Command('speakcheck');
  for (const register of [
    registerRun,
    registerRerun,
    registerExpect,
    registerServe,
    registerLoad,
    registerPerf,
    registerBench,
    registerCompare,
    registerWorker,
  ])
    register(program);
  const flags = new Set<string>(['--help', '--version']);
  const walk = (command: Command) => {
    for (const option of command.options) if (option.long) flags.add(option.long);
    command.commands.forEach(walk);
  };
  walk(program);
  return flags;
}

/** Flags of other tools the docs show, each with its tool: not speakcheck's, so not checked here. */
const OTHER_TOOLS: Readonly<Record<string, string>> = {
  '--cacert': 'curl',
  '--data-raw': 'curl',
  '--depth': 'git clone',
  '--omit': 'npm',
  '--no-audit': 'npm',
  '--no-fund': 'npm',
  '--save': 'npm',
  '--save-dev': 'npm',
  '--import': 'node',
  '--enable-source-maps': 'node',
  '--experimental-websocket':
    'node 20.10-21 (a sequence reproduction script starts its websocket helper with it)',
  '--cpu-prof': 'node (bench --profile starts the run with it)',
  '--no-turbofan': 'node/V8 (tried in docs/benchmarks.md, dropped)',
  '--single-threaded-gc': 'node/V8 (tried in docs/benchmarks.md, dropped)',
  '--single-threaded': 'node/V8 (tried in docs/benchmarks.md, dropped)',
  '--heap-growing-percent': "node/V8 (the run's own process starts with it: src/cli/process-v8.mjs)",
  '--optimize-for-size': 'node/V8 (tried in docs/benchmarks.md, dropped)',
  '--trace-opt': "node/V8 (how espeak's compiles were counted: docs/benchmarks.md)",
  '--trace-deopt': "node/V8 (how espeak's compiles were counted: docs/benchmarks.md)",
  '--max-inlined-bytecode-size': 'node/V8 (reference/synth/espeak-v8.mjs, src/cli/process-v8.mjs)',
  '--no-concurrent-osr': 'node/V8 (reference/synth/espeak-v8.mjs)',
  '--always-sparkplug': 'node/V8 (tried in docs/benchmarks.md, dropped)',
  '--max-opt': 'node/V8 (tried in docs/benchmarks.md, dropped)',
  '--noEmit': 'tsc',
  '--write': 'biome',
  '--rm': 'docker/podman run',
  '--network': 'docker/podman run',
  '--read-only': 'docker/podman run',
  '--tmpfs': 'docker/podman run',
  '--build-arg': 'docker/podman build',
  '--build': 'docker compose up',
  '--from-file': 'kubectl',
  '--from-literal': 'kubectl',
  '--execution-segment': 'k6',
  '--execution-segment-sequence': 'k6',
  '--no-usage-report': 'k6',
  '--checks': 'schemathesis',
  '--speed-json': 'reference/bench/synth-bench.ts',
  '--variants': 'reference/bench/synth-bench.ts',
  '--listen': "the example workflow's own server",
  '--noise-factor': 'perf compare, documented as removed (load/README.md)',
};

/** Every SPEAK_* name the code (sources, scripts, the Action, compose files) mentions. */
function codeVariables(): Set<string> {
  const sources = [
    ...['src', 'suites', 'reference', 'load', 'scripts', 'bin'].flatMap((dir) =>
      files(join(REPO_ROOT, dir), (name) => /\.(ts|mts|mjs|js|sh|yaml|yml)$/.test(name)),
    ),
    join(REPO_ROOT, 'action.yml'),
  ];
  return new Set(sources.flatMap((path) => readFileSync(path, 'utf8').match(/\bSPEAK_[A-Z0-9_]+/g) ?? []));
}

const count = (level: string) => catalogue.filter((r) => r.level === level).length;

describe('docs and code agree', () => {
  test('every --option the docs name exists (a speakcheck option, or another named tool)', () => {
    const known = speakcheckFlags();
    const unknown = occurrences(/(?<![\w-])--[a-zA-Z][a-zA-Z0-9-]*/g)
      .filter(({ match }) => !known.has(match[0]) && !(match[0] in OTHER_TOOLS))
      .map(({ where, match }) => `${where} ${match[0]}`);
    expect(unknown, 'options the docs name that no command has').toEqual([]);
    // The table of other tools holds none of speakcheck's own.
    expect(Object.keys(OTHER_TOOLS).filter((flag) => known.has(flag))).toEqual([]);
  });

  test('every SPEAK_* variable the docs name is one the code reads or writes', () => {
    const code = codeVariables();
    const unknown = occurrences(/\bSPEAK_[A-Z0-9_]+/g)
      // GitHub secrets' names in the workflow examples: the user's, not ours.
      .filter(({ match }) => !code.has(match[0]) && !match[0].startsWith('SPEAK_CI_'))
      .map(({ where, match }) => `${where} ${match[0]}`);
    expect(unknown).toEqual([]);
  });

  test("one exit-code table (README's), and every exit code the docs name exists", () => {
    // `| exit |` too: docs/comparing-runs.md kept a table of its own under that header.
    const tables = occurrences(/^\|\s*exit(?: code)?s?\s*\|/gim).map(({ where }) => where);
    expect(tables).toHaveLength(1);
    expect(tables[0]).toMatch(/^README\.md:/);
    const readme = docs.find((d) => d.file === 'README.md')!.text;
    const at = readme.indexOf(EXIT_TABLE_BEGIN);
    expect(at).toBeGreaterThan(-1);
    expect(readme.indexOf('| exit code |')).toBeGreaterThan(at);
    expect(readme.indexOf('| exit code |')).toBeLessThan(readme.indexOf(EXIT_TABLE_END));
    const codes = new Set<number>(Object.values(EXIT));
    const unknown = occurrences(/\bexit(?:s| code)? (\d+)\b/gi)
      .filter(({ match }) => !codes.has(Number(match[1])))
      .map(({ where, match }) => `${where} ${match[0]}`);
    expect(unknown).toEqual([]);
  });

  test('documented counts of MUSTs, SHOULDs, security checks and requirements are the catalogue’s', () => {
    const wrong = [
      ...occurrences(/\b(\d+) of (\d+) MUST\b/g).flatMap(({ where, match }) =>
        Number(match[2]) === count('MUST') && Number(match[1]) <= Number(match[2])
          ? []
          : [`${where} ${match[0]}`],
      ),
      ...occurrences(/\b(\d+)\/(\d+) MUST\b/g).flatMap(({ where, match }) =>
        Number(match[2]) === count('MUST') ? [] : [`${where} ${match[0]}`],
      ),
      ...occurrences(/\b(\d+) of (\d+) SHOULD\b/g).flatMap(({ where, match }) =>
        Number(match[2]) === count('SHOULD') && Number(match[1]) <= Number(match[2])
          ? []
          : [`${where} ${match[0]}`],
      ),
      ...occurrences(/\b(\d+) requirements\b/g).flatMap(({ where, match }) =>
        Number(match[1]) === catalogue.length ? [] : [`${where} ${match[0]}`],
      ),
      ...occurrences(/\b(\d+) (?:security checks|SECURITY checks)\b/g).flatMap(({ where, match }) =>
        Number(match[1]) === count('SECURITY') ? [] : [`${where} ${match[0]}`],
      ),
      // "the 12 WEBHOOK MUSTs": an area's count.
      ...occurrences(/\b(\d+) ([A-Z]+) MUSTs?\b/g).flatMap(({ where, match }) => {
        const area = match[2]!.toLowerCase();
        const n = catalogue.filter((r) => r.area === area && r.level === 'MUST').length;
        return n === Number(match[1]) ? [] : [`${where} ${match[0]}`];
      }),
    ];
    expect(wrong, `the catalogue: ${count('MUST')} MUST, ${count('SHOULD')} SHOULD`).toEqual([]);
  });

  test("--max-time's default is said as the code has it; the acceptance run's length not in minutes", () => {
    const defaults = new Set([DEFAULT_MAX_TIME_S, FULL_EXPIRY_MAX_TIME_S]);
    const said = occurrences(/--max-time`?[^.\n]{0,40}?default(?: becomes)? (\d+) s\b/g);
    expect(said.length).toBeGreaterThan(0);
    expect(said.filter(({ match }) => !defaults.has(Number(match[1]))).map(({ where }) => where)).toEqual([]);
    const minutes = occurrences(/acceptance[^.|]{0,80}?\b(?:about|up to) (?:an hour|\d+ minutes)/gi);
    expect(minutes.map(({ where, match }) => `${where} ${match[0]}`)).toEqual([]);
  });

  test('suite files at a time are the numbers the code uses (local and remote)', () => {
    const words: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8 };
    const allowed = new Set([LOCAL_SUITE_WORKERS, REMOTE_SUITE_WORKERS]);
    const wrong = occurrences(
      /\b(two|three|four|five|six|seven|eight|\d+) suite files (?:run )?at (?:once|a time)\b/gi,
    )
      // docs/benchmarks.md keeps dated figures of earlier code, as measured then.
      .filter(({ where }) => !where.startsWith('docs/benchmarks.md:'))
      .filter(({ match }) => !allowed.has(words[match[1]!.toLowerCase()] ?? Number(match[1])))
      .map(({ where, match }) => `${where} ${match[0]}`);
    expect(wrong, `the code: ${LOCAL_SUITE_WORKERS} local, ${REMOTE_SUITE_WORKERS} remote`).toEqual([]);
  });

  test("the verdict words quoted are ones the gate prints, and lenient's words are said to be lenient's", () => {
    // The gate writes its headlines; the plain CONFORMS is the words module's (src/verdict/words.ts).
    const gate = ['gate.ts', 'words.ts']
      .map((file) => readFileSync(join(REPO_ROOT, 'src', 'verdict', file), 'utf8'))
      .join('\n');
    // A headline the gate continues with its counts ('NO MUST FAILED —') is printed words too.
    const printed = new Set([...gate.matchAll(/'([A-Z][A-Z ]+[A-Z])(?: —)?'/g)].map((m) => m[1]!));
    expect(printed.has('CONFORMS')).toBe(true);
    const unknown = occurrences(/`((?:NO|DOES|NOTHING|CONFORMS)\b[A-Z ]*[A-Z])/g)
      .filter(({ match }) => ![...printed].some((words) => match[1]!.startsWith(words)))
      .map(({ where, match }) => `${where} ${match[1]}`);
    expect(unknown, `the gate's words: ${[...printed].join(', ')}`).toEqual([]);
    // Strict (the default) gates SHOULDs: its words are NO MUST OR SHOULD FAILED.
    const unlabelled = occurrences(/.{0,80}`NO MUST FAILED\b.{0,80}/g)
      .filter(({ match }) => !/lenient/.test(match[0]))
      .map(({ where, match }) => `${where} ${match[0]}`);
    expect(unlabelled).toEqual([]);
  });

  test("every command's exit codes are rows of the one table", () => {
    const table = renderExitCodeTable().join('\n');
    for (const command of ['`run`', '`compare`', '`perf compare`', '`load`', '`bench`', '`expect`'])
      expect(table, `${command} in the exit-code table`).toContain(command);
    expect(table).toContain(`| ${EXIT.inconclusive} | \`perf compare\`: INCONCLUSIVE`);
  });

  test("each command's --help lists a number once (run said 3 twice)", () => {
    const program = new Command('speakcheck');
    for (const register of [registerRun, registerCompare, registerLoad, registerPerf]) register(program);
    const helps = [...program.commands, ...program.commands.flatMap((c) => c.commands)].map((c) =>
      c.helpInformation(),
    );
    const repeated = helps.flatMap((help) => {
      const line = /Exit codes: ([^(]*)/.exec(help.replace(/\s+/g, ' '))?.[1] ?? '';
      const numbers = [...line.matchAll(/(?:^|, )(\d+) /g)].map((m) => m[1]!);
      return numbers.filter((n, i) => numbers.indexOf(n) !== i);
    });
    expect(helps.some((help) => help.includes('Exit codes:'))).toBe(true);
    expect(repeated).toEqual([]);
  });

  test('install and test durations are stated with the machine they were measured on', () => {
    // A paragraph timing `npm install` or `npm test` names the machine ("2 shared cores", "2-core").
    const unstated = docs.flatMap(({ file, text }) =>
      text
        .split(/\n\s*\n/)
        .filter((paragraph) =>
          /`npm (?:install|test)\b[\s\S]{0,300}?\b(?:in|takes?|took|lasts?) (?:about )?\d+(?:\.\d+)? ?(?:s|min|minutes)\b/.test(
            paragraph,
          ),
        )
        .filter((paragraph) => !/\b\d+(?:[- ]shared)?[- ]cores?\b/.test(paragraph))
        .map((paragraph) => `${file}: ${paragraph.slice(0, 120)}`),
    );
    expect(unstated).toEqual([]);
  });

  test('README is a front door: at most 200 lines (detail lives in docs/)', () => {
    const readme = docs.find((d) => d.file === 'README.md')!.text;
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });
});
