/**
 * The layer order and the no-cycle rule (.dependency-cruiser.cjs, run by `npm run lint:layers` as
 * part of `npm run check`): the working tree breaks none of its rules, and each kind of violation is
 * caught. The probes are cruised with the project's own rule set in a scratch tree mirroring the
 * folders (as test/lint/import-boundaries.int.test.ts does for biome), so the working tree never
 * holds a bad file.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

/** The arguments of `npm run lint:layers` (its rule set and the folders it cruises). */
function lintLayersArgs(): string[] {
  const scripts = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const [command, ...args] = scripts['lint:layers']!.split(/\s+/);
  expect(command, 'npm run lint:layers runs depcruise').toBe('depcruise');
  return args;
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: { name: string }[];
}

function cruise(cwd: string): Violation[] {
  const result = spawnSync(DEPCRUISE, [...lintLayersArgs(), '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
  });
  expect(result.stdout, `depcruise printed no report: ${result.stderr}`).toContain('"summary"');
  return (JSON.parse(result.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** Modules the probes import: no imports of their own. */
const TARGETS = [
  'src/client/http.ts',
  'src/cli/main.ts',
  'src/run/run-conformance.ts',
  'src/perf/compare.ts',
  'src/checks/finding.ts',
  'src/config/types.ts',
  'reference/options.ts',
];

/** path in the scratch tree → its text, and the rule it must break (undefined: none). */
const PROBES: Record<string, { text: string; breaks?: string }> = {
  'src/requirements/bad-upward.ts': {
    text: "import { x } from '../cli/main.ts';\nexport const y = x;\n",
    breaks: 'layer-requirements-imports-upward',
  },
  'src/config/bad-upward.ts': {
    text: "import type { X } from '../client/http.ts';\nexport type Y = X;\n",
    breaks: 'layer-config-imports-upward',
  },
  'src/report/bad-upward.ts': {
    text: "export const y = await import('../run/run-conformance.ts');\n",
    breaks: 'layer-report-imports-upward',
  },
  'src/load/bad-upward.ts': {
    text: "import { x } from '../perf/compare.ts';\nexport const y = x;\n",
    breaks: 'layer-load-imports-upward',
  },
  'src/harness/bad-cycle-a.ts': {
    text: "import { b } from './cycle-b.ts';\nexport const a = () => b;\n",
    breaks: 'no-circular',
  },
  // closes bad-cycle-a's cycle with a type-only import: a cycle of types is a cycle too
  'src/harness/cycle-b.ts': {
    text: "import type { a } from './bad-cycle-a.ts';\nexport const b: typeof a | undefined = undefined;\n",
  },
  'src/unplaced/bad-unlayered.ts': {
    text: "import { x } from '../cli/main.ts';\nexport const y = x;\n",
    breaks: 'module-in-no-layer',
  },
  'src/checks/bad-reference.ts': {
    text: "import { x } from '../../reference/options.ts';\nexport const y = x;\n",
    breaks: 'only-the-cli-wires-in-reference',
  },
  'reference/api/bad-src.ts': {
    text: "import { x } from '../../src/checks/finding.ts';\nexport const y = x;\n",
    breaks: 'reference-imports-only-reference-and-schemas',
  },
  'load/lib/bad-src.ts': {
    text: "import type { X } from '../../src/config/types.ts';\nexport type Y = X;\n",
    breaks: 'k6-scripts-import-only-load-and-schemas',
  },
  'src/cli/good-down.ts': {
    text: "import { x } from '../../reference/options.ts';\nimport { y } from '../run/run-conformance.ts';\nexport const z = [x, y];\n",
  },
  'src/harness/good-down.ts': {
    text: "import { x } from '../client/http.ts';\nimport { y } from '../checks/finding.ts';\nexport const z = [x, y];\n",
  },
};

/** The violation is `path`'s own import, or a cycle `path` is part of. */
const involves = (v: Violation, path: string) => v.from === path || !!v.cycle?.some((c) => c.name === path);

let scratch: string;
let probeViolations: Violation[];

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'speakcheck-layers-'));
  for (const file of ['.dependency-cruiser.cjs', 'tsconfig.json', 'package.json'])
    copyFileSync(join(ROOT, file), join(scratch, file));
  const files: Record<string, string> = Object.fromEntries(
    TARGETS.map((path) => [path, 'export const x = 1;\nexport type X = number;\n']),
  );
  for (const [path, probe] of Object.entries(PROBES)) files[path] = probe.text;
  for (const folder of lintLayersArgs().filter((arg) => !arg.startsWith('-') && !arg.endsWith('.cjs')))
    mkdirSync(join(scratch, folder), { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  }
  probeViolations = cruise(scratch);
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('layers (dependency-cruiser)', () => {
  it('the working tree has no import cycle and no upward import', () => {
    const found = cruise(ROOT).map((v) =>
      v.cycle
        ? `${v.rule.name}: ${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')}`
        : `${v.rule.name}: ${v.from} → ${v.to}`,
    );
    expect(found).toEqual([]);
  });

  it.each(Object.entries(PROBES).filter(([, p]) => p.breaks))('catches %s', (path, probe) => {
    const rules = probeViolations.filter((v) => involves(v, path)).map((v) => v.rule.name);
    expect(rules).toContain(probe.breaks);
  });

  it.each(Object.keys(PROBES).filter((path) => path.includes('/good-')))('allows %s', (path) => {
    expect(probeViolations.filter((v) => involves(v, path))).toEqual([]);
  });

  it('reports nothing beyond the probes', () => {
    const probes = new Set(Object.keys(PROBES).filter((path) => PROBES[path]!.breaks));
    expect(probeViolations.filter((v) => ![...probes].some((path) => involves(v, path)))).toEqual([]);
  });
});
