/**
 * The exit codes of every speakcheck command: one table, one meaning per number (README "Exit
 * codes"). A command uses the rows that apply to it; no command gives a number another meaning.
 * 3 is "no verdict on the server": the target could not be judged (unavailable) or speakcheck
 * itself broke (harness error); the one sentence printed says which (issue 19 asked harness errors
 * to be exit 3, beside the unreachable server).
 * A leaf module (no imports) so the library functions that compute a command's code (the verdict,
 * the load target, perf compare) can return these names without depending on the CLI.
 */
export const EXIT = {
  /** Done and the answer is yes: conforms, thresholds hold, no figure worse, file written. */
  ok: 0,
  /** Done and the answer is no: does not conform (or could not conclude), a figure is worse, a bench target missed. */
  failed: 1,
  /** Invalid options, an unwritable report or cache directory, or unreadable input (a config, report or summary file). */
  usage: 2,
  /** Could not run against the target: unreachable, wrong credentials, not the API, the stack did not start. */
  targetUnavailable: 3,
  /** A tool the command needs is missing and cannot be installed (k6, which needs Go). */
  toolMissing: 4,
  /** `perf compare`, `bench`: the evidence cannot decide (too few runs for the change or the margin seen); more runs would. */
  inconclusive: 5,
  /** speakcheck itself broke (a harness-error): no verdict on the server either, so the same 3; please file a bug. */
  harnessError: 3,
  /** `load`: k6's thresholds failed (k6's own exit code, passed through). */
  thresholdsFailed: 99,
  /** Stopped at once by a second Ctrl-C (SIGINT/SIGTERM). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The table as `--help` shows it, one row per code; `only` picks the rows a command can give. */
export function exitCodesHelp(only: readonly (keyof typeof EXIT)[]): string {
  const meaning: Record<keyof typeof EXIT, string> = {
    ok: 'ok',
    failed: 'negative verdict',
    usage: 'invalid options or input',
    targetUnavailable: 'target unavailable',
    toolMissing: 'tool missing (k6)',
    inconclusive: 'inconclusive: more runs would decide',
    harnessError: 'harness error (a bug of speakcheck)',
    thresholdsFailed: 'k6 thresholds failed',
    interrupted: 'interrupted',
  };
  // One entry per number: harnessError shares 3 with targetUnavailable, said once ("3 a or b").
  const byCode = new Map<number, string[]>();
  for (const name of only) byCode.set(EXIT[name], [...(byCode.get(EXIT[name]) ?? []), meaning[name]]);
  const entries = [...byCode].map(([code, meanings]) => `${code} ${meanings.join(' or ')}`);
  return `Exit codes: ${entries.join(', ')} (README "Exit codes").`;
}

/**
 * README's exit-code table ("Gate your CI"), one row per number, generated between the markers by
 * `npm run docs:config`; test/cli/exit-codes.test.ts fails when README differs. Every other document
 * links to it instead of copying it.
 */
export const EXIT_CODE_DOC: Readonly<Record<number, string>> = {
  [EXIT.ok]:
    'ok: `run` found no failure (no MUST failed; strict and acceptance: no SHOULD and no SECURITY check either): the verdict is CONFORMS when every MUST (strict: and SHOULD) was judged, else `NO MUST OR SHOULD FAILED — N MUST NOT JUDGED` (strict and sdk; lenient: `NO MUST FAILED — N MUST NOT JUDGED`; the acceptance profile exits 1 then: see [Judged and not judged](docs/testing-a-server.md#judged)), `load` thresholds hold, `compare` no later run worse than the baseline at a `--fail-on` level, `perf compare` no figure worse and none inconclusive, `bench` targets met, `expect` wrote the file',
  [EXIT.failed]:
    'the answer is no: `run` does not conform (or could not conclude: stopped by `--max-time` or Ctrl-C, a route that never served or a server that stopped answering altogether (named once as an outage), or an expect entry expired; judged nothing at all: `NOTHING JUDGED`; `--profile acceptance`: a MUST or SHOULD was not judged), `compare` a later run is worse at a `--fail-on` level (a new failure, or blocked after passing), `perf compare` a figure is worse (REGRESSION), or 2× or more worse where too few runs allow no test (LIKELY REGRESSION), `bench` a target missed',
  [EXIT.usage]:
    'invalid options (an unknown option, a bad value, an unknown defect or latitude name; `compare`: fewer than two runs, a `--label` count that is not one per run), a report or cache directory this user cannot write, or unreadable input (config, expect, report or summary file; a run `compare` cannot read as a conformance report): one sentence, said before any request',
  [EXIT.targetUnavailable]:
    "no verdict on the server: could not run against the target (unreachable server, wrong credentials, a server that does not answer JSON, the reference stack did not start), or speakcheck itself broke (`run`: a requirement's status `harness-error`, a bug of ours — please file it with conformance.json) — one sentence says which",
  [EXIT.toolMissing]:
    'a tool the command needs is missing and cannot be installed: k6 (`load`, `perf --interleave`; Go missing)',
  [EXIT.inconclusive]:
    '`perf compare`: INCONCLUSIVE — a figure changed beyond the tolerance, but the runs per side cannot show it significant (one run per side never can); the headline says how many runs per side would decide. Never "no regression". (A change of 2× or more with too few runs is LIKELY REGRESSION, exit 1: [load/README.md](load/README.md#comparing-runs).) `bench`: INCONCLUSIVE — with fewer than 3 runs a median within 10 % of its target (`--runs 3` or more would decide)',
  [EXIT.thresholdsFailed]: "`load`: k6's thresholds failed (k6's own code, passed through)",
  [EXIT.interrupted]: 'stopped at once by a second Ctrl-C (SIGINT/SIGTERM)',
};

export const EXIT_TABLE_BEGIN =
  '<!-- BEGIN exit codes: generated from src/exit-codes.ts by `npm run docs:config` -->';
export const EXIT_TABLE_END = '<!-- END exit codes -->';

/** The table in markdown, rows in the order of the numbers. */
export function renderExitCodeTable(): string[] {
  const codes = Object.keys(EXIT_CODE_DOC)
    .map(Number)
    .sort((a, b) => a - b);
  return [
    '| exit code | meaning |',
    '|---|---|',
    ...codes.map((code) => `| ${code} | ${EXIT_CODE_DOC[code]} |`),
  ];
}

/** README with the table between its markers replaced by the generated one. */
export function renderExitCodesSection(readme: string): string {
  const lines = readme.split('\n');
  const from = lines.indexOf(EXIT_TABLE_BEGIN);
  const to = lines.indexOf(EXIT_TABLE_END);
  if (from < 0 || to < from)
    throw new Error(`README.md lacks the markers ${EXIT_TABLE_BEGIN} … ${EXIT_TABLE_END}`);
  return [...lines.slice(0, from + 1), ...renderExitCodeTable(), ...lines.slice(to)].join('\n');
}
