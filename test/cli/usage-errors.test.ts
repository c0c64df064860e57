/**
 * Every usage error exits 2 with one sentence, no help dump (issue 51 item 4): an unknown option,
 * a bad value, an unknown defect or latitude switch. The commands are registered as main.ts does,
 * with the process's exit and stderr replaced; the process itself: test/cli/usage-errors.int.test.ts.
 */
import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { DEFECTS } from '../../reference/defects/index.ts';
import { LATITUDES } from '../../reference/latitude/index.ts';
import { registerBench } from '../../src/cli/commands/bench.ts';
import { registerLoad } from '../../src/cli/commands/load.ts';
import { registerPerf } from '../../src/cli/commands/perf.ts';
import { registerRun } from '../../src/cli/commands/run.ts';
import { registerServe } from '../../src/cli/commands/serve.ts';
import { usageErrorsExit2, usageSentence } from '../../src/cli/usage-errors.ts';
import { EXIT } from '../../src/exit-codes.ts';

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

async function speakcheck(...args: string[]): Promise<{ code: number; stderr: string }> {
  // Help goes to stdout through commander's writeOut; kept out of the test's output.
  const program = new Command('speakcheck').configureOutput({ writeOut: () => {} });
  let stderr = '';
  usageErrorsExit2(
    program,
    args[0],
    (code) => {
      throw new Exited(code);
    },
    (text) => {
      stderr += text;
    },
  );
  for (const register of [registerRun, registerServe, registerLoad, registerPerf, registerBench])
    register(program);
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof Exited) return { code: error.code, stderr };
    throw error;
  }
  throw new Error(`speakcheck ${args.join(' ')} did not exit`);
}

describe('usage errors: exit 2, one sentence', () => {
  test.each([
    [['run', '--bogus'], /^speakcheck run: unknown option '--bogus'/],
    [['serve', '--defect', 'nope'], /^speakcheck serve: .*unknown defect "nope"; known defects: /],
    [['serve', '--latitude', 'nope'], /^speakcheck serve: .*unknown latitude "nope"/],
    [['serve', '--port', 'http'], /^speakcheck serve: option '--port <n>' argument 'http' is invalid/],
    [['load', '--vus', 'many'], /^speakcheck load: .*expected a positive integer/],
    [['perf', 'compare', 'only-one'], /^speakcheck perf: missing required argument 'current'/],
    [['bench', '--latitude', 'nope'], /^speakcheck bench: .*unknown latitude "nope"/],
  ])('speakcheck %j', async (args, sentence) => {
    const { code, stderr } = await speakcheck(...args);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toMatch(sentence);
    expect(stderr.trimEnd().split('\n'), 'one line, no help after it').toHaveLength(1);
    expect(stderr).not.toContain('Usage:');
  });

  test('help asked for is exit 0', async () => {
    expect((await speakcheck('run', '--help')).code).toBe(EXIT.ok);
  });

  test("commander's suggestion stays in the one sentence", () => {
    expect(usageSentence("error: unknown option '--base-ur'\n(Did you mean --base-url?)\n", 'run')).toBe(
      "speakcheck run: unknown option '--base-ur' (Did you mean --base-url?) (speakcheck run --help lists the options).\n",
    );
  });
});

test('serve --help lists every defect and latitude name (issue 51 item 12)', () => {
  const program = new Command('speakcheck');
  let help = '';
  program.configureOutput({ writeOut: (text) => (help += text) });
  registerServe(program);
  program.commands.find((c) => c.name() === 'serve')!.outputHelp();
  for (const { name } of [...DEFECTS, ...LATITUDES]) expect(help).toContain(name);
  expect(help).toMatch(/^Defects \(--defect NAME; reference\/defects\/README\.md\): /m);
});
