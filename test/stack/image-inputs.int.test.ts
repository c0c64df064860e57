/**
 * The reference image's content hash (src/stack/image-inputs.ts), no container runtime needed: it
 * covers what the image runs (the stack, schemas, the serve/worker modules of src/, the Dockerfile,
 * package files) and nothing else, so docs, tests, suites and harness edits reuse the image.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/stack/embedded.ts';
import { hashImageInputs, IMAGE_ENTRY, imageInputFiles } from '../../src/stack/image-inputs.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('reference image inputs', () => {
  it('in this repository: the stack and the serve/worker modules, not the harness, suites, docs or tests', () => {
    const files = imageInputFiles(REPO_ROOT);
    for (const needed of [
      IMAGE_ENTRY,
      'reference/Dockerfile',
      'reference/worker/main.ts',
      'reference/worker/websocket/index.ts',
      'schemas/index.ts',
      'package.json',
      'package-lock.json',
      'src/cli/reference-main.ts',
      'src/cli/commands/serve.ts',
      'src/cli/commands/worker.ts',
      'src/cli/defect-flag.ts',
    ]) {
      expect(files, needed).toContain(needed);
    }
    expect(files.some((f) => /^schemas\/.+\.schema\.json$/.test(f))).toBe(true);
    const unrelated = files.filter(
      (f) =>
        /^(docs|test|suites|fixtures|reports)\//.test(f) ||
        /^src\/(harness|checks|requirements|report|run|load|perf|bench)\//.test(f) ||
        f === 'src/cli/main.ts' ||
        f.endsWith('.test.ts') ||
        f.endsWith('.md') ||
        f.startsWith('reference/bench/'),
    );
    expect(unrelated).toEqual([]);
  });

  it('the hash changes with an input (or a build argument) and not with anything else', () => {
    const root = mkdtempSync(join(tmpdir(), 'speakcheck-image-inputs-'));
    dirs.push(root);
    const put = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    put(IMAGE_ENTRY, "await import('../src/cli/reference-main.ts');\n");
    put('src/cli/reference-main.ts', "import { x } from './commands/serve.ts';\n");
    put('src/cli/commands/serve.ts', "export const x = () => import('../../stack/lazy.ts');\n");
    put('src/stack/lazy.ts', 'export const lazy = 1;\n');
    put('src/harness/index.ts', 'export const harness = 1;\n');
    put('reference/server.ts', 'export const server = 1;\n');
    put('reference/README.md', '# prose\n');
    put('reference/bench/run.ts', 'export const bench = 1;\n');
    put('reference/api/app.test.ts', 'test\n');
    put('reference/Dockerfile', 'FROM base\n');
    put('docs/notes.md', 'notes\n');
    put('package.json', '{}\n');

    const before = hashImageInputs(root, {});
    expect(hashImageInputs(root, {})).toBe(before); // stable
    for (const unrelated of [
      'src/harness/index.ts',
      'reference/README.md',
      'reference/bench/run.ts',
      'reference/api/app.test.ts',
      'docs/notes.md',
    ]) {
      put(unrelated, 'edited\n');
      expect(hashImageInputs(root, {}), unrelated).toBe(before);
    }
    expect(hashImageInputs(root, { DEPS: 'context' })).not.toBe(before);
    let previous = before;
    for (const input of [
      'src/stack/lazy.ts',
      'reference/server.ts',
      'reference/Dockerfile',
      'package.json',
    ]) {
      put(input, 'edited\n');
      const now = hashImageInputs(root, {});
      expect(now, input).not.toBe(previous);
      previous = now;
    }
  });
});
