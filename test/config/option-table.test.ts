/**
 * The option table (src/config/options.ts) is the one place an option is declared: an entry added
 * there appears in the help, the config file, the environment, --print-config and
 * docs/configuration.md; the committed docs are what the table generates; every entry's key is
 * commander's attribute name and the config key.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { addTableOptions } from '../../src/cli/option-parsers.ts';
import { CONFIG_DOC_SECTIONS, renderConfigurationDoc } from '../../src/config/config-docs.ts';
import { CONFIG_KEYS, parseConfigText } from '../../src/config/config-file.ts';
import { type OptionSpec, RUN_OPTIONS } from '../../src/config/options.ts';
import { parsePositiveInt } from '../../src/config/parsers.ts';
import { ConfigError, printableRun, type RunFlags, resolveRun } from '../../src/config/resolve.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const now = new Date('2026-11-21T10:20:30.456Z');

/** A synthetic option, declared only as a table entry. */
const fooBar = {
  flag: '--foo-bar <n>',
  env: 'SPEAK_FOO_BAR',
  configKey: 'fooBar',
  parse: parsePositiveInt,
  default: 7,
  help: 'a synthetic option of this test',
} satisfies OptionSpec<number>;
const table = { ...RUN_OPTIONS, fooBar };

/** commander's flags for argv, as `speakcheck run` would hand them over. */
function commanderFlags(argv: string[]): { flags: Record<string, unknown>; help: string } {
  const command = addTableOptions(new Command('run').exitOverride(), table);
  command.parse(argv, { from: 'user' });
  return { flags: command.opts(), help: command.helpInformation() };
}

function printed(
  flags: Record<string, unknown>,
  env: Record<string, string>,
  file: Record<string, unknown> = {},
) {
  const run = resolveRun(flags as RunFlags, env, now, file as RunFlags, { table });
  const values: Record<string, unknown> = run.values;
  return { run, fooBar: values.fooBar, shown: printableRun(run, undefined, table) };
}

describe('a new option, added in one place (the table)', () => {
  test('appears in the help, with its environment variable and default once', () => {
    const { help } = commanderFlags([]);
    const line = help.slice(help.indexOf('--foo-bar <n>'));
    expect(line).toMatch(
      /^--foo-bar <n>\s+a synthetic option of this test \(env\s+SPEAK_FOO_BAR; default: 7\)/,
    );
    expect(help.match(/SPEAK_FOO_BAR/g)).toHaveLength(1);
  });

  test('is read from the flag, the environment and the config file in that order, parsed, defaulted', () => {
    const file = parseConfigText('fooBar: 5\n', 'speakcheck.config.yaml', {}, table);
    expect(file).toEqual({ fooBar: '5' });
    expect(printed(commanderFlags(['--foo-bar', '3']).flags, { SPEAK_FOO_BAR: '9' }, file).fooBar).toBe(3);
    expect(printed({}, { SPEAK_FOO_BAR: '9' }, file).fooBar).toBe(9);
    expect(printed({}, {}, file).fooBar).toBe(5);
    expect(printed({}, {}).fooBar).toBe(7);
    expect(() => printed({}, { SPEAK_FOO_BAR: 'many' })).toThrow(ConfigError);
    expect(() => printed({}, { SPEAK_FOO_BAR: 'many' })).toThrow(
      '--foo-bar "many" must be a positive whole number.',
    );
    // Without the entry, a config file may not name it.
    expect(() => parseConfigText('fooBar: 5\n', 'c.yaml', {})).toThrow(/c\.yaml: unknown key "fooBar"/);
  });

  test('is shown by --print-config under its config key', () => {
    expect(printed({}, { SPEAK_FOO_BAR: '9' }).shown).toMatchObject({ configFile: null, fooBar: 9 });
  });

  test('is documented in docs/configuration.md', () => {
    const doc = renderConfigurationDoc([
      ...CONFIG_DOC_SECTIONS,
      { title: 'Test', commands: '`run`', table: { fooBar } },
    ]);
    expect(doc).toContain(
      '| `--foo-bar <n>` | `SPEAK_FOO_BAR` | `fooBar` | 7 | a synthetic option of this test |',
    );
  });
});

describe('the table', () => {
  test('docs/configuration.md is what the table generates (npm run docs:config writes it)', () => {
    const committed = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    expect(committed, 'docs/configuration.md is stale: run npm run docs:config').toBe(
      renderConfigurationDoc(),
    );
  });

  test("each entry's key is commander's attribute name of its flag and, when the file takes it, its config key", () => {
    const command = addTableOptions(new Command('run'), RUN_OPTIONS);
    expect(command.options.map((o) => o.attributeName())).toEqual(Object.keys(RUN_OPTIONS));
    for (const [key, spec] of Object.entries(RUN_OPTIONS) as [string, OptionSpec<unknown>][])
      if (spec.configKey !== undefined) expect(spec.configKey).toBe(key);
  });

  test('every existing config key, environment variable and default stays', () => {
    expect([...CONFIG_KEYS].sort()).toEqual(
      [
        'baseUrl',
        'authUrl',
        'email',
        'password',
        'token',
        'model',
        'webhookUrl',
        'webhookListen',
        'requestTimeout',
        'readyTimeout',
        'accessTokenLifetime',
        'wsUrlLifetime',
        'maxExpiryWait',
        'expiryLeeway',
        'profile',
        'only',
        'requirement',
        'concurrency',
        'keep',
        'reportDir',
        'target',
        'expect',
        'maxTime',
        'secondEmail',
        'secondPassword',
        'secondToken',
        'maxRps',
        'caFile',
        'expiry',
        'signedUrlLifetime',
        'cacheDir',
        'sequences',
        'seed',
        'replayPath',
        // load's SLO (LOAD_OPTIONS): one config file serves every command.
        'slo',
      ].sort(),
    );
    const envs = Object.values(RUN_OPTIONS as Record<string, OptionSpec<unknown>>).flatMap((s) =>
      s.env ? [s.env] : [],
    );
    for (const name of [
      'SPEAK_BASE_URL',
      'SPEAK_AUTH_URL',
      'SPEAK_EMAIL',
      'SPEAK_PASSWORD',
      'SPEAK_TOKEN',
      'SPEAK_MODEL',
      'SPEAK_WEBHOOK_URL',
      'SPEAK_WEBHOOK_LISTEN',
      'SPEAK_REQUEST_TIMEOUT_MS',
      'SPEAK_READY_TIMEOUT_MS',
      'SPEAK_ACCESS_TOKEN_LIFETIME',
      'SPEAK_WS_URL_LIFETIME',
      'SPEAK_MAX_EXPIRY_WAIT',
      'SPEAK_PROFILE',
      'SPEAK_EXPIRY',
      'SPEAK_SIGNED_URL_LIFETIME',
      'SPEAK_ONLY',
      'SPEAK_REQUIREMENTS',
      'SPEAK_EXPECT',
      'SPEAK_CONCURRENCY',
      'SPEAK_KEEP',
      'SPEAK_REPORT_DIR',
      'SPEAK_MAX_TIME',
      'SPEAK_SECOND_EMAIL',
      'SPEAK_SECOND_PASSWORD',
      'SPEAK_SECOND_TOKEN',
      'SPEAK_MAX_RPS',
      'SPEAK_CA_FILE',
    ])
      expect(envs).toContain(name);
    const { config, maxTimeMs } = resolveRun({}, {}, now);
    expect(config).toMatchObject({ timeouts: { requestMs: 15_000, readyMs: 45_000 }, concurrency: 8 });
    expect(config.expiry.maxWaitS).toBe(20);
    expect(maxTimeMs).toBe(300_000);
    expect(resolveRun({ profile: 'acceptance' }, {}, now).maxTimeMs).toBe(4_200_000);
    expect(resolveRun({ maxTime: '1.5' }, {}, now).maxTimeMs).toBe(1500);
    expect(() => resolveRun({}, { SPEAK_MAX_TIME: '-1' }, now)).toThrow(
      '--max-time "-1" is not a positive number of seconds (e.g. 300).',
    );
  });
});

describe('credentials: needed to run against a server, not to list or print', () => {
  test('a remote run without credentials is a usage error; listing or printing it is not', () => {
    const remote = { baseUrl: 'http://127.0.0.1:9' };
    expect(() => resolveRun(remote, {}, now)).toThrow('a remote server needs credentials');
    const { config } = resolveRun(remote, {}, now, {}, { credentials: 'optional' });
    expect(config).toMatchObject({ target: 'remote', baseUrl: 'http://127.0.0.1:9' });
    expect(config.token ?? config.email).toBeUndefined();
    // Half a pair is still wrong, listing or not.
    expect(() => resolveRun({ ...remote, email: 'a@b.c' }, {}, now, {}, { credentials: 'optional' })).toThrow(
      '--email and --password go together',
    );
  });
});
