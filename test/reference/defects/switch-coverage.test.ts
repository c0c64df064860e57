/**
 * Sharpness bookkeeping: every MUST and SHOULD of the catalogue is proven by a defect switch the
 * matrix catches (defect-matrix.int.test.ts), or is named below with the reason no switch can prove
 * it. The list may only shrink: an id a switch declares must leave it. And the switch table of
 * reference/defects/README.md is the registry's, row for row (name, area, declared ids, kind).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFECTS, type DefectSpec } from '../../../reference/defects/index.ts';
import { catalogue } from '../../../src/requirements/index.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');

/** MUST and SHOULD ids no switch declares, each with why. */
const NO_SWITCH: Readonly<Record<string, string>> = {};

describe('defect switches', () => {
  test('every MUST and SHOULD is declared by a switch, or named with the reason none can prove it', () => {
    const declared = new Set<string>(DEFECTS.flatMap((defect) => defect.requirements));
    const judged = catalogue
      .filter((r) => r.level === 'MUST' || r.level === 'SHOULD')
      .map((r): string => r.id);
    const unproven = judged.filter((id) => !declared.has(id) && NO_SWITCH[id] === undefined);
    expect(unproven, 'MUST/SHOULD ids no defect switch declares: add a switch').toEqual([]);
    const stale = Object.keys(NO_SWITCH).filter((id) => declared.has(id) || !judged.includes(id));
    expect(stale, 'ids a switch declares now (or no MUST/SHOULD any more): drop them from NO_SWITCH').toEqual(
      [],
    );
  });

  test("reference/defects/README.md's table is the registry's, row for row", () => {
    const readme = readFileSync(join(REPO_ROOT, 'reference', 'defects', 'README.md'), 'utf8');
    const rows = [
      ...readme.matchAll(/^\| `([a-z0-9-]+)`( \((hang|outage)\))? \| ([a-z]+) \| ([A-Z0-9, -]+) \|/gm),
    ].map((m) => `${m[1]} ${m[3] ?? '-'} ${m[4]} ${m[5]!.split(/,\s*/).sort().join(',')}`);
    const registry = (DEFECTS as readonly DefectSpec[]).map(
      (defect) =>
        `${defect.name} ${defect.kind ?? '-'} ${defect.area} ${[...defect.requirements].sort().join(',')}`,
    );
    expect([...rows].sort()).toEqual([...registry].sort());
  });
});
