/**
 * `speakcheck run --list`: the areas, tests and requirement ids a run with this selection would
 * run, collected by vitest without running anything: no global setup (no stack, no shared voice),
 * no hooks, no test bodies, so no server is contacted. covers() puts each test's ids in its meta
 * at collection.
 */
import { relative } from 'node:path';
import type { TestModule } from 'vitest/node';
import { resolveCacheDir } from '../config/cache-dir.mjs';
import type { DeepReadonly } from '../config/deep-freeze.ts';
import type { RunConfig } from '../config/types.ts';
import { providePlan } from '../harness/run-bootstrap.ts';
import { resolveRunPlan } from '../harness/run-plan.ts';
import { suiteFilters } from '../harness/suite-files.ts';
import { suitesInlineConfig, suitesViteOverrides } from '../harness/suites-vitest-options.ts';
import { REPO_ROOT } from '../stack/embedded.ts';

export interface ListedTest {
  name: string;
  requirements: string[];
}

export interface ListedFile {
  file: string;
  tests: ListedTest[];
}

export async function collectTests(
  config: DeepReadonly<RunConfig>,
): Promise<{ files: ListedFile[]; errors: string[] }> {
  // The suites read the config at import; nothing in it is contacted at collection.
  // The embedded stack is not started, so it has no URL yet: a placeholder that cannot resolve (.invalid).
  const baseUrl = config.baseUrl || 'http://embedded-stack-not-started.invalid';
  const plan = resolveRunPlan(
    { ...config, baseUrl, authUrl: config.authUrl || baseUrl },
    undefined,
    undefined,
  );
  const { createVitest } = await import('vitest/node');
  const vitest = await createVitest(
    'test',
    {
      ...suitesInlineConfig(REPO_ROOT),
      globalSetup: [],
      // Each file collected in a fresh module graph: with the suites' isolate: false, a loaded machine
      // (2 cores, other processes busy) silently lost whole files from the listing (1 to 2 of 14 in 4 of
      // 6 listings beside a unit-test run); isolated, 6 of 6 listed all 14.
      isolate: true,
      reporters: [],
    },
    suitesViteOverrides(resolveCacheDir(config.cacheDir), REPO_ROOT),
  );
  // The suites read the plan at import (src/harness/run-context.ts), as in a run.
  providePlan(vitest, plan);
  try {
    const { testModules, unhandledErrors } = await vitest.collect(suiteFilters(config));
    const files = testModules
      .map((m) => listedFile(m))
      .filter((f) => f.tests.length > 0)
      .sort((a, b) => a.file.localeCompare(b.file));
    const errors = [
      ...testModules.flatMap((m) => m.errors().map((e) => `${relativePath(m)}: ${e.message}`)),
      ...unhandledErrors.map((e) => String((e as { message?: string }).message ?? e)),
    ];
    return { files, errors };
  } finally {
    await vitest.close();
  }
}

function listedFile(module: TestModule): ListedFile {
  return {
    file: relativePath(module),
    tests: [...module.children.allTests()].map((t) => ({
      name: t.fullName,
      requirements: t.meta().requirements ?? [],
    })),
  };
}

/** The listing: per file its tests and their ids, then the totals and every id once. */
export function formatList(
  files: readonly ListedFile[],
  config: Pick<DeepReadonly<RunConfig>, 'only' | 'requirements'>,
): string {
  const lines: string[] = [];
  for (const f of files) {
    lines.push(`${f.file}`);
    for (const t of f.tests) lines.push(`  ${t.name}  [${t.requirements.join(', ')}]`);
  }
  const selected = new Set(config.requirements);
  const ids = [...new Set(files.flatMap((f) => f.tests.flatMap((t) => t.requirements)))]
    .filter((id) => selected.size === 0 || selected.has(id))
    .sort();
  const tests = files.reduce((n, f) => n + f.tests.length, 0);
  lines.push(
    '',
    `${files.length} file(s), ${tests} test(s), ${ids.length} requirement(s)${config.only.length ? ` (areas ${config.only.join(', ')})` : ''}:`,
    ids.join(', '),
  );
  return lines.join('\n');
}

function relativePath(module: TestModule): string {
  return relative(REPO_ROOT, module.moduleId).replace(/\\/g, '/');
}
