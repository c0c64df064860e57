/**
 * `rerun --help` says what rerun does, not what run does: the server and the profile default to the
 * report's (they used to read "start the embedded reference stack" and "strict"), and SPEAK_PROFILE,
 * like SPEAK_BASE_URL, is the user's word over the report's.
 */
import { Command } from 'commander';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { registerRerun, rerunFlags } from '../../src/cli/commands/rerun.ts';
import type { ConformanceReport } from '../../src/report/model.ts';

function rerunHelp(): string {
  const program = new Command('speakcheck');
  registerRerun(program);
  return program.commands
    .find((c) => c.name() === 'rerun')!
    .helpInformation()
    .replace(/\s+/g, ' ');
}

const report = {
  run: { target: 'remote', baseUrl: 'https://speak.example', profile: 'lenient' },
  requirements: [],
} as unknown as ConformanceReport;

afterEach(() => vi.unstubAllEnvs());

describe('rerun', () => {
  test("--help: --base-url and --profile default to the report's", () => {
    const help = rerunHelp();
    expect(help).toContain(
      "--base-url <url> server under test (env SPEAK_BASE_URL; default: the report's run.baseUrl (a run against the embedded or container stack: a fresh stack of that kind))",
    );
    expect(help).not.toContain('default: start the embedded reference stack');
    expect(help).toMatch(/--profile <profile> .*\(env SPEAK_PROFILE; default: the report's profile\)/);
    expect(help).not.toMatch(/SPEAK_PROFILE; default: strict/);
  });

  test("the report's profile unless --profile or SPEAK_PROFILE says otherwise", () => {
    vi.stubEnv('SPEAK_PROFILE', '');
    vi.stubEnv('SPEAK_BASE_URL', '');
    expect(rerunFlags(report, {}, ['A']).profile).toBe('lenient');
    expect(rerunFlags(report, { profile: 'acceptance' }, ['A']).profile).toBe('acceptance');
    vi.stubEnv('SPEAK_PROFILE', 'strict');
    // Left to the resolution, where the environment is read: strict.
    expect(rerunFlags(report, {}, ['A']).profile).toBeUndefined();
  });
});
