/**
 * "Can this user write a report here?", asked before a command contacts anything (issue 51 item 5:
 * a non-root user in a root-owned project learned it from `EACCES: mkdir …/reports` after the
 * server was already contacted, exit 3). Nothing is created: the directory, or the nearest of its
 * parents that exists (the one the command would create it in), must be a directory this user may
 * write and enter.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Why `dir` cannot be written (an errno code such as EACCES, or ENOTDIR), or undefined when it can. */
export function unwritableDir(dir: string): string | undefined {
  let at = resolve(dir);
  for (;;) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(at).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return code ?? String(error);
      const parent = dirname(at);
      if (parent === at) return 'ENOENT';
      at = parent;
      continue;
    }
    if (!isDirectory) return 'ENOTDIR';
    try {
      accessSync(at, constants.W_OK | constants.X_OK);
      return undefined;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? String(error);
    }
  }
}

/** The one sentence for a report directory that cannot be written, naming the option. */
export function reportDirSentence(dir: string, problem: string): string {
  return `the report directory ${resolve(dir)} cannot be written (${problem}): give --report-dir a directory this user can write`;
}
