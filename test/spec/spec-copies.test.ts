/**
 * spec/ holds the repository's own copy of the contract and the wire facts, so a clone needs nothing
 * beside it. Where the team's originals are beside the checkout (../shared/spec/), every file there
 * must be in spec/ byte for byte: an edit to either side without the other fails here, naming the file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

const COPIES = join(REPO_ROOT, 'spec');
const ORIGINALS = join(REPO_ROOT, '..', 'shared', 'spec');

/** The first line where two texts differ (1-based), for a message that points at the drift. */
function firstDifferentLine(a: string, b: string): number {
  const left = a.split('\n');
  const right = b.split('\n');
  const index = left.findIndex((line, i) => line !== right[i]);
  return (index === -1 ? left.length : index) + 1;
}

test('spec/ holds the contract and the wire facts', () => {
  expect(readdirSync(COPIES).sort()).toEqual(expect.arrayContaining(['speak-v1.md', 'wire-facts.md']));
});

// Only on a machine with the originals beside the checkout: a plain clone has nothing to compare with.
describe.runIf(existsSync(ORIGINALS))('spec/ against ../shared/spec/', () => {
  test.each(existsSync(ORIGINALS) ? readdirSync(ORIGINALS).sort() : [])('%s is copied unchanged', (name) => {
    const copy = join(COPIES, name);
    expect(existsSync(copy), `spec/${name} is missing: copy ../shared/spec/${name} into spec/`).toBe(true);
    const original = readFileSync(join(ORIGINALS, name));
    const copied = readFileSync(copy);
    expect(
      copied.equals(original),
      `spec/${name} drifted from ../shared/spec/${name} (first difference at line ${firstDifferentLine(
        original.toString('utf8'),
        copied.toString('utf8'),
      )}): copy it again, or bring the change to the original`,
    ).toBe(true);
  });
});
