/**
 * The suites' prebuilt modules (src/harness/prebuilt-suites.ts, made by src/cli/bundle.mjs): a spec's
 * relative import of a repository module resolves to its prebuilt file, named as the bundle names it;
 * specs, packages and modules the build did not hold are left to vite.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { prebuiltName as bundleName } from '../../src/cli/bundle.mjs';
import { prebuiltName, prebuiltResolver, prebuiltSuites } from '../../src/harness/prebuilt-suites.ts';

const dir = mkdtempSync(join(tmpdir(), 'speakcheck-prebuilt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = '/repo';
for (const source of ['src/harness/index.ts', 'suites/support/items.ts', 'fixtures/texts.ts']) {
  writeFileSync(join(dir, prebuiltName(source)), '');
}
const specMap = { version: 3, sources: ['../../../suites/auth.spec.ts'], names: [], mappings: 'AAAA' };
writeFileSync(join(dir, prebuiltName('suites/auth.spec.ts')), 'export const spec = 1;\n');
writeFileSync(join(dir, `${prebuiltName('suites/auth.spec.ts')}.map`), JSON.stringify(specMap));

function loadOf(id: string): unknown {
  const hook = prebuiltResolver(root, dir).load as (id: string) => unknown;
  return hook(id);
}

function resolveFrom(importer: string | undefined, source: string): unknown {
  const hook = prebuiltResolver(root, dir).resolveId as (s: string, i: string | undefined) => unknown;
  return hook(source, importer);
}

test('names a prebuilt module as the bundle does', () => {
  for (const source of ['src/harness/index.ts', 'suites/stateful/model.ts', 'schemas/index.ts']) {
    expect(prebuiltName(source)).toBe(bundleName(source));
  }
  expect(prebuiltName('suites/support/items.ts')).toBe('suites__support__items.js');
});

test("a spec's relative imports of prebuilt modules resolve to their files", () => {
  expect(resolveFrom('/repo/suites/auth.spec.ts', '../src/harness/index.ts')).toBe(
    join(dir, 'src__harness__index.js'),
  );
  expect(resolveFrom('/repo/suites/auth.spec.ts', './support/items.ts')).toBe(
    join(dir, 'suites__support__items.js'),
  );
  expect(resolveFrom('/repo/suites/websocket/a.spec.ts?x=1', '../../fixtures/texts.ts')).toBe(
    join(dir, 'fixtures__texts.js'),
  );
});

test('specs, packages, modules outside the root and modules not prebuilt are left to vite', () => {
  expect(resolveFrom('/repo/suites/auth.spec.ts', './lists.spec.ts')).toBeNull();
  expect(resolveFrom('/repo/suites/auth.spec.ts', 'vitest')).toBeNull();
  expect(resolveFrom('/repo/suites/auth.spec.ts', '../../elsewhere/x.ts')).toBeNull();
  expect(resolveFrom('/repo/suites/auth.spec.ts', '../src/harness/not-built.ts')).toBeNull();
  expect(resolveFrom(undefined, './support/items.ts')).toBeNull();
});

test('from the sources (this module is TypeScript) there are none: every module is transformed', () => {
  expect(prebuiltSuites(root)).toBeUndefined();
});

test('a spec with a prebuilt file is served as its JavaScript, its source map naming the spec', () => {
  expect(loadOf('/repo/suites/auth.spec.ts')).toEqual({
    code: 'export const spec = 1;\n',
    map: { ...specMap, sources: ['/repo/suites/auth.spec.ts'] },
  });
  expect(loadOf('/repo/suites/new.spec.ts'), 'a spec added since the bundle was made').toBeNull();
  expect(loadOf('/repo/suites/support/items.ts'), 'not a spec: imported, not loaded').toBeNull();
  expect(loadOf('/elsewhere/suites/auth.spec.ts')).toBeNull();
});
