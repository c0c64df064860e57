/**
 * A requirement id is a type (RequirementId, generated from the catalogue into
 * schemas/requirement-ids.ts): a misspelled id in a suite's covers() or check(), or in the reference
 * server's defect and latitude registries, fails `tsc` — the first step of `npm run check` — instead
 * of surfacing at run time. Proven on probes compiled with the project's own compiler options in a
 * scratch tree beside the working tree (the probes import src/ and schemas/ from the working tree,
 * node_modules is linked in, the registries are copied with one bad entry added), as test/lint/layers.int.test.ts does for the layer rules, so the working tree
 * never holds a bad file. A control probe with correct ids compiles clean, so the errors are the ids'.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

/**
 * A suite file's imports: vitest first, as the suites have it (the kit's TaskMeta augmentation,
 * src/harness/meta.ts, is only seen once vitest's own types are loaded), then the kit.
 */
const SUITE_HEADER = `import type {} from 'vitest';\nimport { check, covers, notObserved } from '${join(ROOT, 'src', 'harness', 'index.ts')}';\n`;

/** A registry of reference/ with `entry` added as the first element of its `array`. */
function registryWith(path: string, array: string, entry: string): string {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const opening = `export const ${array} = [\n`;
  expect(text, `${path} declares ${array}`).toContain(opening);
  // Its one import (schemas/) read from the working tree, where the scratch copy cannot reach relatively.
  return text
    .replaceAll("from '../../schemas/", `from '${join(ROOT, 'schemas')}/`)
    .replace(opening, `${opening}  ${entry}\n`);
}

interface Probe {
  text: () => string;
  /** The misspelled id the compiler must refuse; undefined for the control, which must compile. */
  misspelled?: string;
}

const PROBES: Record<string, Probe> = {
  'suites/probe-covers.spec.ts': {
    text: () => `${SUITE_HEADER}covers(['AUTH-LOGIN-OKK'], 'a misspelled covers id', () => undefined);\n`,
    misspelled: 'AUTH-LOGIN-OKK',
  },
  'suites/probe-check.spec.ts': {
    text: () =>
      `${SUITE_HEADER}covers(['TAKE-READY-BOUND'], 'a misspelled check id', () => {\n  check('TAKE-READY-BOUNDS', () => undefined);\n});\n`,
    misspelled: 'TAKE-READY-BOUNDS',
  },
  'suites/probe-not-observed.spec.ts': {
    text: () =>
      `${SUITE_HEADER}covers(['WS-END-OF-TAKE'], 'a misspelled notObserved id', () => {\n  notObserved('WS-END-OF-TAK', 'why', 'what would');\n});\n`,
    misspelled: 'WS-END-OF-TAK',
  },
  'reference/defects/registry.ts': {
    text: () =>
      registryWith(
        'reference/defects/registry.ts',
        'DEFECTS',
        "d('probe-misspelled', 'auth', ['AUTH-LOGIN-FAIL-410'], 'a probe entry with a misspelled id'),",
      ),
    misspelled: 'AUTH-LOGIN-FAIL-410',
  },
  'reference/latitude/registry.ts': {
    text: () =>
      registryWith(
        'reference/latitude/registry.ts',
        'LATITUDES',
        "l('probe-misspelled', 'errors', 'a quote', 'a probe entry', [], ['ERR-PROSODY-REFUSD']),",
      ),
    misspelled: 'ERR-PROSODY-REFUSD',
  },
  'suites/probe-control.spec.ts': {
    text: () =>
      `${SUITE_HEADER}covers(['AUTH-LOGIN-OK', 'TAKE-READY-BOUND'], 'declared ids', () => {\n  check('TAKE-READY-BOUND', () => undefined);\n  notObserved(['AUTH-LOGIN-OK'], 'why', 'what would');\n});\n`,
  },
};

interface Diagnostic {
  file: string;
  line: number;
  text: string;
}

let scratch: string;
let diagnostics: Diagnostic[];
let output: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'speakcheck-ids-'));
  // "type": "module": NodeNext reads the probes as ES modules, as it reads the project's files.
  copyFileSync(join(ROOT, 'package.json'), join(scratch, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'));
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      include: Object.keys(PROBES),
    }),
  );
  for (const [path, probe] of Object.entries(PROBES)) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), probe.text());
  }
  const result = spawnSync(TSC, ['--noEmit', '--pretty', 'false', '-p', 'tsconfig.json'], {
    cwd: scratch,
    encoding: 'utf8',
  });
  output = `${result.stdout}${result.stderr}`;
  // `file(line,col): error TSnnnn: message`, continuation lines indented below it.
  diagnostics = [];
  for (const line of output.split('\n')) {
    const head = /^(.+?)\((\d+),\d+\): error (TS\d+: .*)$/.exec(line);
    if (head) diagnostics.push({ file: head[1]!, line: Number(head[2]), text: head[3]! });
    else if (line.startsWith(' ') && diagnostics.length) diagnostics.at(-1)!.text += `\n${line.trim()}`;
  }
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a requirement id is a type (tsc, as npm run check runs it)', () => {
  it.each(Object.entries(PROBES).filter(([, p]) => p.misspelled))(
    'refuses the misspelled id in %s, and only it',
    (path, probe) => {
      const mine = diagnostics.filter((d) => d.file === path);
      expect(mine.length, `tsc found nothing wrong with ${path}:\n${output}`).toBeGreaterThan(0);
      const lines = probe.text().split('\n');
      for (const d of mine) {
        expect(lines[d.line - 1], `${path}:${d.line}: ${d.text}`).toContain(probe.misspelled);
        expect(d.text).toContain(`"${probe.misspelled}"`);
      }
    },
  );

  it('accepts declared ids: the control probe compiles clean', () => {
    expect(diagnostics.filter((d) => d.file === 'suites/probe-control.spec.ts')).toEqual([]);
  });

  it('reports nothing beyond the probes', () => {
    expect(diagnostics.filter((d) => !(d.file in PROBES))).toEqual([]);
  });
});
