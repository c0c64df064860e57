/**
 * Every relative link in the repository's markdown leads somewhere: the file exists and, for a
 * `#fragment` into a markdown file, a heading (GitHub's slug) or an `<a id>` of that name exists
 * there. Moving a section out of the README must not leave a dead link behind.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

/** Directories that hold no documentation of ours. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.cache', 'dist', 'reports']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED_DIRS.has(name) ? [] : markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside code fences and code spans: links inside code are examples, not links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a markdown file offers: heading slugs (duplicates numbered as GitHub does) and `<a id>`. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

interface Link {
  file: string;
  target: string;
}

function relativeLinks(file: string): Link[] {
  const text = prose(readFileSync(file, 'utf8'));
  const targets = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  return targets
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target))
    .map((target) => ({ file: relative(REPO_ROOT, file), target }));
}

/** Why a link is dead, or undefined when it leads somewhere. */
function deadLink({ file, target }: Link): string | undefined {
  const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
  const path =
    pathPart === '' ? join(REPO_ROOT, file) : resolve(dirname(join(REPO_ROOT, file)), decodeURI(pathPart));
  const repoPath = relative(REPO_ROOT, path);
  if (!existsSync(path)) return `${repoPath} does not exist`;
  if (fragment === undefined || !path.endsWith('.md')) return undefined;
  return anchorsOf(readFileSync(path, 'utf8')).has(fragment)
    ? undefined
    : `${repoPath} has no heading or anchor #${fragment}`;
}

const FILES = markdownFiles(REPO_ROOT);

describe('markdown links', () => {
  test('the slugs follow GitHub', () => {
    expect(slug('Gate your CI')).toBe('gate-your-ci');
    expect(slug('A hosted server (issue 32)')).toBe('a-hosted-server-issue-32');
    expect(slug('`run --list`: what a run would do')).toBe('run---list-what-a-run-would-do');
  });

  test('the README and docs are among the files checked', () => {
    const names = FILES.map((f) => relative(REPO_ROOT, f));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'docs/dev/contracts.md']));
    expect(relativeLinks(join(REPO_ROOT, 'README.md')).length, 'links found in README.md').toBeGreaterThan(
      20,
    );
  });

  test('a dead link is caught, naming the file and the fragment', () => {
    expect(deadLink({ file: 'README.md', target: 'docs/no-such-page.md' })).toBe(
      'docs/no-such-page.md does not exist',
    );
    expect(deadLink({ file: 'README.md', target: '#no-such-section' })).toBe(
      'README.md has no heading or anchor #no-such-section',
    );
  });

  test.each(FILES.map((f) => relative(REPO_ROOT, f)))('%s: every relative link leads somewhere', (file) => {
    const dead = relativeLinks(join(REPO_ROOT, file)).flatMap((link) => {
      const why = deadLink(link);
      return why ? [`(${link.target}): ${why}`] : [];
    });
    expect(dead, `dead links in ${file}`).toEqual([]);
  });
});
