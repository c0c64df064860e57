/**
 * The Action's inputs come from the option table (src/config/action-inputs.ts, written into
 * action.yml by `npm run docs:config`): the committed action.yml is what the table generates, every
 * option a gate needs is an input (a second account, a CA file, a rate, a webhook URL, a budget), a
 * new table entry becomes an input without more code, and each input reaches the run step.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import {
  ActionFileError,
  actionInputs,
  INPUT_ENV_PREFIX,
  renderActionFile,
} from '../../src/config/action-inputs.ts';
import { type OptionSpec, RUN_OPTIONS } from '../../src/config/options.ts';
import { parsePositiveInt } from '../../src/config/parsers.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const committed = readFileSync(join(ROOT, 'action.yml'), 'utf8');

interface ActionFile {
  inputs: Record<string, { description: string; required: boolean; default?: string }>;
  runs: { steps: { id?: string; env?: Record<string, string> }[] };
}
const action = parse(committed) as ActionFile;
const runStepEnv = action.runs.steps.find((step) => step.id === 'run')!.env!;

describe('action.yml', () => {
  test('is what the option table generates (npm run docs:config writes it)', () => {
    expect(committed, 'action.yml is stale: run npm run docs:config').toBe(renderActionFile(committed));
  });

  test('has an input for every option a gate needs, the secrets marked as secrets', () => {
    for (const name of [
      'base-url',
      'email',
      'password',
      'token',
      'second-email',
      'second-password',
      'second-token',
      'ca-file',
      'max-rps',
      'webhook-url',
      'webhook-listen',
      'max-time',
      'profile',
      'areas',
      'requirement',
      'expect-file',
    ])
      expect(Object.keys(action.inputs)).toContain(name);
    for (const [name, input] of Object.entries(action.inputs)) {
      const secret = ['password', 'token', 'second-password', 'second-token'].includes(name);
      expect(input.description.includes('A secret: pass secrets.NAME'), name).toBe(secret);
    }
  });

  test('every option with a SPEAK_* variable is an input but the three the Action sets or cannot take', () => {
    const inputs = new Set(actionInputs().map((i) => i.env));
    const left = Object.values(RUN_OPTIONS as Record<string, OptionSpec<unknown>>)
      .flatMap((spec) => (spec.env && !inputs.has(spec.env) ? [spec.env] : []))
      .sort();
    expect(left).toEqual(['SPEAKCHECK_CACHE_DIR', 'SPEAK_KEEP', 'SPEAK_REPORT_DIR']);
  });

  test("each generated input reaches the run step under its variable, and an input's default is empty", () => {
    for (const input of actionInputs()) {
      expect(runStepEnv[`${INPUT_ENV_PREFIX}${input.env}`]).toBe(`\${{ inputs.${input.name} }}`);
      // Empty: an input not given leaves a SPEAK_* of the step's env alone (scripts/action-run.sh).
      expect(action.inputs[input.name]).toMatchObject({ required: false, default: '' });
    }
  });

  test('a new table entry becomes an input and a line of the run step, with nothing else to write', () => {
    const fooBar = {
      flag: '--foo-bar <n>',
      env: 'SPEAK_FOO_BAR',
      configKey: 'fooBar',
      parse: parsePositiveInt,
      default: 7,
      help: 'a synthetic option of this test',
    } satisfies OptionSpec<number>;
    const written = parse(
      renderActionFile(committed, actionInputs({ ...RUN_OPTIONS, fooBar })),
    ) as ActionFile;
    expect(written.inputs['foo-bar']).toEqual({
      description: 'a synthetic option of this test (speakcheck --foo-bar; env SPEAK_FOO_BAR; default: 7)',
      required: false,
      default: '',
    });
    expect(written.runs.steps.find((s) => s.id === 'run')!.env!.SPEAKCHECK_INPUT_SPEAK_FOO_BAR).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, as action.yml holds it
      '${{ inputs.foo-bar }}',
    );
    // The hand-written inputs stay.
    expect(Object.keys(written.inputs)).toEqual(expect.arrayContaining(['node-version', 'artifact-name']));
  });

  test('a file without the markers is refused, not overwritten', () => {
    expect(() => renderActionFile('name: x\n')).toThrow(ActionFileError);
  });
});
