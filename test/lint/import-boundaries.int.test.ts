/**
 * The folders' boundaries (biome.json `overrides`, rule noRestrictedImports, run by `npm run check`):
 * harness code (src/, suites/) never imports reference/ except the CLI composition root (src/cli/);
 * suites/ import src/ only through the suite kit src/harness/index.ts and the checks src/checks/*;
 * load/ imports neither src/ nor reference/; reference/ imports neither src/ nor suites/. Each probe
 * is linted with the project's own biome.json in a scratch tree mirroring the folders, so the
 * working tree never holds a bad file.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');

/** path in the scratch tree → its one import line. */
const PROBES: Record<string, string> = {
  'src/checks/bad.ts':
    "import { blobOrigin } from '../../reference/options.ts';\nexport const x = blobOrigin;\n",
  'suites/support/bad.ts': "export const x = await import('../../reference/server.ts');\n",
  'load/lib/bad.ts':
    "import type { RunConfig } from '../../src/config/types.ts';\nexport type X = RunConfig;\n",
  'load/scenarios/bad.ts':
    "import { DEFECTS } from '../../reference/defects/index.ts';\nexport const x = DEFECTS;\n",
  'reference/api/bad.ts':
    "import { Finding } from '../../src/checks/finding.ts';\nexport const x = Finding;\n",
  'reference/store/bad.ts':
    "import { once } from '../../suites/support/scenarios.ts';\nexport const x = once;\n",
  'src/cli/commands/good.ts':
    "import { blobOrigin } from '../../../reference/options.ts';\nexport const x = blobOrigin;\n",
  'src/checks/good.ts': "import { schemas } from '../../schemas/index.ts';\nexport const x = schemas;\n",
  'suites/harness-bad.ts': "import { check } from '../src/harness/check.ts';\nexport const x = check;\n",
  'suites/client-bad.ts':
    "import type { StreamedRequest } from '../src/client/ws-stream.ts';\nexport type X = StreamedRequest;\n",
  'suites/support/verdict-bad.ts':
    "import { withWouldJudge } from '../../src/verdict/verdict.ts';\nexport const x = withWouldJudge;\n",
  'suites/kit-good.ts':
    "import { check } from '../src/harness/index.ts';\nimport { show } from '../src/checks/finding.ts';\nimport { textArb } from '../fixtures/texts.ts';\nexport const x = [check, show, textArb];\n",
  'suites/support/kit-good.ts':
    "import { covers } from '../../src/harness/index.ts';\nimport { isDone } from '../../src/checks/status.ts';\nexport const x = [covers, isDone];\n",
  'load/lib/good.ts': "import type { Take } from '../../schemas/types.ts';\nexport type X = Take;\n",
};

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string };
}

let scratch: string;
let diagnostics: Diagnostic[];

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'speakcheck-boundaries-'));
  copyFileSync(join(ROOT, 'biome.json'), join(scratch, 'biome.json'));
  for (const [path, text] of Object.entries(PROBES)) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  }
  const result = spawnSync(BIOME, ['lint', '--reporter=json', '.'], { cwd: scratch, encoding: 'utf8' });
  const json = result.stdout.slice(result.stdout.indexOf('{'));
  diagnostics = (JSON.parse(json) as { diagnostics: Diagnostic[] }).diagnostics;
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const restrictedIn = (path: string) =>
  diagnostics.filter((d) => d.location.path === path && d.category === 'lint/style/noRestrictedImports');

describe('import boundaries (biome noRestrictedImports)', () => {
  it.each(Object.keys(PROBES).filter((path) => path.endsWith('bad.ts')))(
    'refuses the import in %s',
    (path) => {
      const found = restrictedIn(path);
      expect(found, `no noRestrictedImports diagnostic for ${path}`).toHaveLength(1);
      expect(found[0]!.message).toMatch(/never imports|imports neither/);
    },
  );

  it.each(Object.keys(PROBES).filter((path) => path.endsWith('good.ts')))(
    'allows the import in %s',
    (path) => {
      expect(restrictedIn(path)).toEqual([]);
    },
  );
});
