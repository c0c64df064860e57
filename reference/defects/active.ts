/**
 * Which defect switches are on in this process. Off unless the stack was started with
 * `defects: [...]` (`serve --defect NAME`): startReferenceStack calls activateDefects, which also
 * hands the list to the worker processes it forks through DEFECTS_ENV; a worker reads it with
 * adoptParentDefects() only because it is a child of such a stack (process.send exists).
 */
import { DEFECTS, type DefectName, findDefect } from './registry.ts';

export const DEFECTS_ENV = 'SPEAKCHECK_REFERENCE_DEFECTS';

const active = new Set<DefectName>();

export const defects = {
  has(name: DefectName): boolean {
    return active.has(name);
  },
  list(): DefectName[] {
    return [...active];
  },
};

export class UnknownDefectError extends Error {}

/** Turns on `names` (replacing what was on); an unknown name throws, listing the known ones. */
export function activateDefects(names: readonly string[]): void {
  const unknown = names.filter((name) => !findDefect(name));
  if (unknown.length > 0) {
    throw new UnknownDefectError(
      `unknown defect ${unknown.join(', ')}; known defects: ${DEFECTS.map((x) => x.name).join(', ')}`,
    );
  }
  active.clear();
  for (const name of names) active.add(name as DefectName);
  if (active.size > 0) process.env[DEFECTS_ENV] = [...active].join(',');
  else delete process.env[DEFECTS_ENV];
}

/** In a worker process forked by a defective stack: the parent's switches. */
export function adoptParentDefects(): void {
  const given = process.send ? process.env[DEFECTS_ENV] : undefined;
  if (given) activateDefects(given.split(','));
}
