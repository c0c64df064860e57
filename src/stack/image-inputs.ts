/**
 * Which files decide the reference image (reference/Dockerfile), so that only an edit to one of them
 * builds a new image: docs, tests, suites, fixtures and the harness's own modules do not.
 *
 * - reference/ and schemas/ as a whole (the stack; schemas/index.ts reads every *.schema.json and the
 *   worker loads its websocket hook by URL, so following imports is not enough there), bin/, the
 *   Dockerfile, .dockerignore, package.json, package-lock.json and tsconfig.json (tsx reads it);
 * - of src/, only the modules the image's entry (bin/speakcheck-reference.js → `serve`, `worker`)
 *   reaches through relative imports. The image copies src/ whole, but nothing else of it ever runs.
 * Never: *.test.ts and reference/bench (not in the image, see .dockerignore), prose (*.md) and
 * reference/compose.yaml (copied but never read).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export const IMAGE_ENTRY = 'bin/speakcheck-reference.js';
const IMAGE_TREES = ['reference', 'schemas', 'bin'];
const IMAGE_FILES = [
  'reference/Dockerfile',
  '.dockerignore',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
];

const RELATIVE_IMPORTS = [
  /\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g, // import ... from, export ... from
  /\bimport\s*['"](\.{1,2}\/[^'"]+)['"]/g, // import './side-effect.ts'
  /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g, // import('./lazy.ts')
  /new URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url/g, // fork / worker thread entries
];

const posix = (path: string) => path.split(sep).join('/');

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

function excluded(rel: string): boolean {
  return (
    rel.endsWith('.test.ts') ||
    rel.endsWith('.md') ||
    rel.startsWith('reference/bench/') ||
    rel === 'reference/compose.yaml'
  );
}

/** Files reached from `entry` through relative imports (the entry included), repo-relative. */
export function importClosure(root: string, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path) || !isFile(path)) return;
    seen.add(path);
    const text = readFileSync(path, 'utf8');
    for (const pattern of RELATIVE_IMPORTS) {
      for (const match of text.matchAll(pattern)) visit(resolve(dirname(path), match[1]!));
    }
  };
  visit(resolve(root, entry));
  return [...seen].map((path) => posix(relative(root, path)));
}

/** Every file whose content decides the image, repo-relative, sorted. */
export function imageInputFiles(root: string): string[] {
  const files = new Set<string>();
  const walk = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    else if (stat?.isFile()) files.add(posix(relative(root, path)));
  };
  for (const tree of IMAGE_TREES) walk(join(root, tree));
  for (const file of IMAGE_FILES) if (isFile(join(root, file))) files.add(file);
  for (const file of importClosure(root, IMAGE_ENTRY)) files.add(file);
  return [...files].filter((file) => !excluded(file)).sort();
}

/** A short hash of the build arguments and every input file's path and content (the image tag). */
export function hashImageInputs(root: string, buildArgs: Record<string, string>): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(buildArgs));
  for (const file of imageInputFiles(root)) {
    hash.update(`\0${file}\0`);
    hash.update(readFileSync(join(root, file)));
  }
  return hash.digest('hex').slice(0, 16);
}
