/**
 * The GitHub Action's inputs (action.yml), generated from the option table (options.ts) by
 * `npm run docs:config` (scripts/config-docs.ts), so an option added to the table is an input of the
 * Action too; test/config/action-inputs.test.ts fails when the committed action.yml differs.
 *
 * Two regions of action.yml are written, each between a BEGIN and an END marker: the inputs, and the
 * run step's environment. An input reaches speakcheck as `SPEAKCHECK_INPUT_<its SPEAK_* variable>`;
 * scripts/action-run.sh exports the SPEAK_* variable only when the input is not empty. So an input
 * left empty does not clear a `SPEAK_*` the workflow set in the step's `env:` (a composite action's
 * step env would otherwise override the caller's with the empty input), and a given input wins.
 */
import { defaultShown, flagName, type OptionSpec, RUN_OPTIONS } from './options.ts';

export interface ActionInput {
  /** The input's name: the flag without its dashes (`--second-email` → `second-email`). */
  name: string;
  spec: OptionSpec<unknown>;
  /** The SPEAK_* variable speakcheck reads it from. */
  env: string;
}

/**
 * Options the Action sets itself or a CI gate does not take from an input: the report directory
 * (the Action's own, uploaded as an artifact and given as an output), the cache directory (the
 * runner's), `--keep` (a switch whose variable takes only `1`, which an input of `true` would turn
 * off without a word: set `SPEAK_KEEP: 1` in the step's env instead).
 */
const NOT_INPUTS: ReadonlySet<string> = new Set(['reportDir', 'cacheDir', 'keep']);

/** Inputs whose name predates the generation (kept so existing workflows keep working). */
const INPUT_NAMES: Readonly<Record<string, string>> = { only: 'areas', expect: 'expect-file' };

/** The prefix of the run step's variables that carry the inputs (scripts/action-run.sh reads them). */
export const INPUT_ENV_PREFIX = 'SPEAKCHECK_INPUT_';

/** Every option of the table with an environment variable, but those the Action sets itself. */
export function actionInputs(
  table: Readonly<Record<string, OptionSpec<unknown>>> = RUN_OPTIONS,
): ActionInput[] {
  return Object.entries(table).flatMap(([key, spec]) =>
    spec.env === undefined || NOT_INPUTS.has(key)
      ? []
      : [{ name: INPUT_NAMES[key] ?? flagName(spec).slice(2), spec, env: spec.env }],
  );
}

/** A YAML scalar in single quotes (a quote doubled): descriptions hold `:`, `#` and quotes. */
const quoted = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Defaults the Action does not share with a local run: without a base URL it refuses (exit 2,
 * scripts/action-run.sh runs with --target remote) instead of testing the embedded stack, so a gate
 * whose secret is empty (a fork's pull request) or whose input is misspelt never passes untested.
 */
const ACTION_DEFAULTS: Readonly<Record<string, string>> = {
  SPEAK_BASE_URL: 'none: the step fails with exit 2 (it never tests the embedded stack)',
};

function description(input: ActionInput): string {
  const { spec } = input;
  const shown = ACTION_DEFAULTS[input.env] ?? defaultShown(spec);
  const notes = [
    `speakcheck ${flagName(spec)}`,
    `env ${input.env}`,
    ...(shown === undefined ? [] : [`default: ${shown}`]),
  ];
  const secret = spec.secret ? '. A secret: pass secrets.NAME, never a literal' : '';
  return `${spec.help}${secret} (${notes.join('; ')})`;
}

export const INPUTS_BEGIN = '  # BEGIN inputs generated from src/config/options.ts by `npm run docs:config`';
export const INPUTS_END = '  # END generated inputs';
export const ENV_BEGIN = '        # BEGIN generated from src/config/options.ts by `npm run docs:config`';
export const ENV_END = '        # END generated env';

/**
 * The inputs region. Every input is optional and empty by default, base-url too: its SPEAK_* variable
 * may come from the step's env (or the workspace's speakcheck.config.yaml); without any the step
 * exits 2 (ACTION_DEFAULTS). The option's default is said in the description, applied by speakcheck.
 */
export function renderActionInputs(inputs: readonly ActionInput[] = actionInputs()): string[] {
  return inputs.flatMap((input) => [
    `  ${input.name}:`,
    `    description: ${quoted(description(input))}`,
    '    required: false',
    "    default: ''",
  ]);
}

/** The run step's environment region: each input under its SPEAKCHECK_INPUT_ name. */
export function renderActionEnv(inputs: readonly ActionInput[] = actionInputs()): string[] {
  return inputs.map((input) => `        ${INPUT_ENV_PREFIX}${input.env}: \${{ inputs.${input.name} }}`);
}

export class ActionFileError extends Error {}

/** action.yml with both regions replaced by what the table generates (the rest kept as written). */
export function renderActionFile(current: string, inputs: readonly ActionInput[] = actionInputs()): string {
  const withInputs = replaceRegion(current, INPUTS_BEGIN, INPUTS_END, renderActionInputs(inputs));
  return replaceRegion(withInputs, ENV_BEGIN, ENV_END, renderActionEnv(inputs));
}

function replaceRegion(text: string, begin: string, end: string, body: readonly string[]): string {
  const lines = text.split('\n');
  const from = lines.indexOf(begin);
  const to = lines.indexOf(end);
  if (from < 0 || to < from)
    throw new ActionFileError(`action.yml lacks the markers "${begin.trim()}" … "${end.trim()}"`);
  return [...lines.slice(0, from + 1), ...body, ...lines.slice(to)].join('\n');
}
