/**
 * docs/configuration.md, generated from the option table (options.ts) by `npm run docs:config`
 * (scripts/config-docs.ts); test/config/option-table.test.ts fails when the committed file is not
 * what the table generates.
 */
import { CONFIG_FILE_NAMES } from './config-file.ts';
import {
  defaultShown,
  FILE_OPTIONS,
  flagName,
  LOAD_OPTIONS,
  type OptionSpec,
  type OptionTable,
  RUN_ONLY_OPTIONS,
  TARGET_OPTIONS,
} from './options.ts';

export interface DocSection {
  title: string;
  /** Which commands take these options. */
  commands: string;
  table: OptionTable;
}

/** The sections of docs/configuration.md, in the order `run --help` shows the options. */
export const CONFIG_DOC_SECTIONS: readonly DocSection[] = [
  {
    title: 'Server and credentials',
    commands:
      '`run`, `rerun`, `load`; `perf compare --interleave` takes the credentials and the model (not the URLs)',
    table: TARGET_OPTIONS,
  },
  { title: 'The run', commands: '`run`, `rerun`', table: RUN_ONLY_OPTIONS },
  {
    title: 'Load thresholds',
    commands:
      '`load` (its scenarios and `load capacity`; the scenario knobs are `--env NAME=value`, load/README.md). ' +
      'Against `--base-url` a scenario judges errors and completeness only (error rate, takes completed, ' +
      'audio received) unless an SLO is given; the limits tuned to the reference stack apply only on the ' +
      'embedded and container stacks; summary.md and the terminal list every threshold with its source',
    table: LOAD_OPTIONS,
  },
  {
    title: 'Config file and printing',
    commands: '`run`, `rerun`, `load`; `perf compare --interleave` takes `--config`',
    table: FILE_OPTIONS,
  },
];

/** A table cell: pipes escaped (`embedded | container` stays one cell), angle brackets not read as HTML. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const code = (text: string) => `\`${text}\``;

function row(spec: OptionSpec<unknown>): string {
  const kind =
    spec.kind === 'switch'
      ? spec.env
        ? ' (a switch; env `1` is on, a file `true`)'
        : ''
      : spec.kind === 'list'
        ? ' (repeatable; a list in a file)'
        : spec.kind === 'csv'
          ? ' (a list or a comma string in a file)'
          : '';
  const shownDefault = defaultShown(spec);
  return `| ${[
    code(spec.flag),
    spec.env ? code(spec.env) : '',
    spec.configKey ? code(spec.configKey) : '',
    shownDefault === undefined ? '' : cell(shownDefault),
    cell(
      spec.help +
        (spec.secret ? ' (a secret: prefer the environment variable; redacted by --print-config)' : ''),
    ) + kind,
  ].join(' | ')} |`;
}

export function renderConfigurationDoc(sections: readonly DocSection[] = CONFIG_DOC_SECTIONS): string {
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/config/options.ts by `npm run docs:config`: edit the table, not this file. -->',
    '',
    'The options of `speakcheck run` are given as flags, environment variables or keys of a config file',
    `(${CONFIG_FILE_NAMES.map(code).join(', ')} in the working directory, or`,
    '`--config FILE`). Precedence, option by option: flags > environment variables > config file >',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own syntax
    'defaults. In a config file, `${NAME}` in a value is replaced by the environment variable NAME (unset:',
    'exit 2), so secrets stay out of the file; an unknown key is exit 2. `--print-config` prints the',
    'resolved options under their config-file keys (secrets redacted, and which file was read) and exits',
    '0 without contacting any server.',
    '',
    '```yaml',
    '# speakcheck.config.yaml',
    'baseUrl: https://tts.example.com',
    'email: ci@example.com',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own syntax
    'password: ${SPEAK_CI_PASSWORD}',
    'only: [auth, takes, audio]',
    'profile: lenient',
    '```',
  ];
  for (const section of sections) {
    lines.push(
      '',
      `## ${section.title}`,
      '',
      `Taken by ${section.commands}.`,
      '',
      '| Flag | Environment | Config key | Default | What it does |',
      '| --- | --- | --- | --- | --- |',
      ...Object.values(section.table).map(row),
    );
  }
  lines.push(
    '',
    `${sections.reduce((n, s) => n + Object.keys(s.table).length, 0)} options; ${sections
      .flatMap((s) => Object.values(s.table))
      .filter((spec) => spec.configKey === undefined)
      .map((spec) => code(flagName(spec)))
      .join(', ')} exist on the command line only.`,
    '',
  );
  return lines.join('\n');
}
