/**
 * The latitude registry is well formed (unique names, known areas, every area covered, each quote
 * verbatim in speak-v1.md, incompatibilities naming real switches), `serve --latitude` refuses an
 * unknown name listing the known ones, and a stack with a switch announces it (`latitude=` line,
 * `x-speak-latitude` on every answer) while a clean one does not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { compatibleLatitudes, findLatitude, LATITUDES } from '../../../reference/latitude/index.ts';
import { catalogue } from '../../../src/requirements/index.ts';
import { REPO_ROOT, SPEAKCHECK_BIN } from '../../../src/stack/embedded.ts';
import { runToEnd } from '../../../src/stack/launcher.ts';
import { type DefectiveStack, startDefectiveStack } from '../defects/defective-stack.ts';

const SPEC = readFileSync(join(REPO_ROOT, 'spec', 'speak-v1.md'), 'utf8');

test('every latitude switch is well formed and quotes speak-v1.md verbatim', () => {
  const areas = new Set(catalogue.map((r) => r.area as string));
  const names = new Set<string>();
  for (const latitude of LATITUDES) {
    expect(names.has(latitude.name), `${latitude.name} twice`).toBe(false);
    names.add(latitude.name);
    expect(areas.has(latitude.area), `${latitude.name}: area ${latitude.area}`).toBe(true);
    expect(
      SPEC.includes(latitude.quote),
      `${latitude.name}: quote not in speak-v1.md: ${latitude.quote}`,
    ).toBe(true);
    for (const other of latitude.incompatible ?? [])
      expect(findLatitude(other), `${latitude.name}: incompatible with unknown ${other}`).toBeDefined();
    // A departure is from a SHOULD only: a switch that breaks a MUST is a defect, not a latitude.
    for (const id of latitude.departsFrom ?? [])
      expect(catalogue.find((r) => r.id === id)?.level, `${latitude.name}: departs from ${id}`).toBe(
        'SHOULD',
      );
  }
  expect(LATITUDES.length).toBeGreaterThanOrEqual(25);
  expect(new Set(LATITUDES.map((l) => l.area))).toEqual(areas);
});

test('the combined run holds every switch not declared incompatible', () => {
  const combined = new Set(compatibleLatitudes().map((l) => l.name));
  for (const latitude of LATITUDES) {
    if (!(latitude.incompatible ?? []).length) expect(combined.has(latitude.name), latitude.name).toBe(true);
  }
});

test('an unknown latitude is refused, listing the known ones, and nothing starts', async () => {
  const result = await runToEnd({
    args: [SPEAKCHECK_BIN, 'serve', '--port', '0', '--latitude', 'no-such-choice'],
    cwd: REPO_ROOT,
    timeoutMs: 60_000,
  });
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('unknown latitude "no-such-choice"');
  for (const latitude of LATITUDES) expect(result.stderr).toContain(latitude.name);
});

describe('a stack with two latitude switches', () => {
  let stack: DefectiveStack;
  beforeAll(async () => {
    stack = await startDefectiveStack(
      [],
      ['--workers', '1', '--latitude', 'logout-204', '--latitude', 'version-extra-fields'],
    );
  }, 130_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('prints latitude= and marks every answer, also refusals', async () => {
    expect(stack.latitudeLine).toBe('logout-204,version-extra-fields');
    const missing = await fetch(`${stack.baseUrl}/no/such/route`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-speak-latitude')).toBe('logout-204,version-extra-fields');
    expect(missing.headers.get('x-speak-defects')).toBeNull();
  });

  test('the switch acts: /version carries its extra fields', async () => {
    const version = await fetch(`${stack.baseUrl}/v1/speak/version`);
    expect(await version.json()).toMatchObject({ version: 1, build: expect.any(String) });
  });
});
